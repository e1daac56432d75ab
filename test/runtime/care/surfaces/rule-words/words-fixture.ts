/** The rule bundle the fake authoring model answers in the "Draft from words" tests: a door bell rule, its channels chosen by the test. */
export const doorBundle = (channels: string[]) => ({
  schema_version: 1,
  rule: { name: "Door bell at night", trigger_type: "webhook" },
  steps: [
    {
      label: "Tell the family",
      step_type: "notification",
      config: { alert_level: "info", channels, message_template: "Someone at the door: {{trigger_input.who}}" },
    },
  ],
});
