/**
 * The layers of runtime/ import only downward (platform ← household ← care ← app), node
 * types never import runtime/ (they get the care-services seam), and nothing imports in a
 * circle. `npm run check` runs this; `npm run graph` draws docs/architecture-graph.svg.
 *
 * runtime/care is three tiers, each importing only the tiers above it in CARE_TIERS and, inside
 * a tier, only the capability folders listed before it: no two care folders import each other.
 * A new care folder is added to its tier's list (an unlisted one is refused).
 */
const layer = (name, above) => ({
  name: `${name}-imports-downward`,
  comment: `runtime/${name} may not import ${above.join(", ")}`,
  severity: "error",
  from: { path: `^runtime/${name}/` },
  to: { path: `^runtime/(${above.join("|")})/` },
});

/** runtime/care's tiers, lowest first, and each tier's capability folders in the order they may use each other. */
const CARE_TIERS = [
  // The core: what rules are written in, the rules themselves, their runs and events.
  ["core", ["language", "events", "journal", "rules", "pipeline"]],
  // The services that act: models, cameras, displays, chat, reports, prompts, notifications, knowledge;
  // services/care-services.ts composes them into the seam node handlers get.
  ["services", ["llm", "perception", "eink", "chat", "reports", "interactive", "notify", "health-report", "knowledge"], "care-services.ts"],
  // The surfaces that face people and agents: MCP, the voice companion, rehearsal, drafting rules from words.
  ["surfaces", ["mcp", "voice", "rehearsal", "rule-words"]],
];

const careTierRules = CARE_TIERS.flatMap(([tier, folders, top], t) => {
  const higherTiers = CARE_TIERS.slice(t + 1).map(([name]) => name);
  return [
    ...(higherTiers.length
      ? [
          {
            name: `care-${tier}-imports-lower-tiers`,
            comment: `runtime/care/${tier} may not import ${higherTiers.join(", ")}`,
            severity: "error",
            from: { path: `^runtime/care/${tier}/` },
            to: { path: `^runtime/care/(${higherTiers.join("|")})/` },
          },
        ]
      : []),
    ...folders.slice(0, -1).map((folder, i) => ({
      name: `care-${tier}-${folder}-imports-earlier-folders`,
      comment: `runtime/care/${tier}/${folder} may use only the ${tier} folders listed before it, not ${folders.slice(i + 1).join(", ")}`,
      severity: "error",
      from: { path: `^runtime/care/${tier}/${folder}/` },
      to: { path: `^runtime/care/${tier}/(${folders.slice(i + 1).join("|")})/` },
    })),
    ...(top
      ? [
          {
            name: `care-${tier}-composition-on-top`,
            comment: `runtime/care/${tier}/${top} composes the ${tier} folders; they are given what it makes, never import it`,
            severity: "error",
            from: { path: `^runtime/care/${tier}/[^/]+/` },
            to: { path: `^runtime/care/${tier}/${top.replace(".", "\\.")}$` },
          },
        ]
      : []),
    {
      name: `care-${tier}-folders-listed`,
      comment: `every folder of runtime/care/${tier} is listed in CARE_TIERS (.dependency-cruiser.cjs)`,
      severity: "error",
      from: { path: `^runtime/care/${tier}/[^/]+/`, pathNot: `^runtime/care/${tier}/(${folders.join("|")})/` },
      to: {},
    },
  ];
});

module.exports = {
  forbidden: [
    ...careTierRules,
    {
      name: "care-tiers-only",
      comment: "runtime/care holds only its tiers (CARE_TIERS)",
      severity: "error",
      from: { path: "^runtime/care/", pathNot: `^runtime/care/(${CARE_TIERS.map(([t]) => t).join("|")})/` },
      to: {},
    },
    // A few type cycles inside the engine (a run's state and its stored row, the writers and
    // their factory) are tolerated; no other circle, of values or of types.
    { name: "no-circular", severity: "error", from: { pathNot: "^runtime/care/core/pipeline/engine/" }, to: { circular: true } },
    {
      name: "nodes-not-on-runtime",
      comment: "node types use the care-services seam of nodes/_kit, never runtime/",
      severity: "error",
      from: { path: "^nodes/" },
      to: { path: "^runtime/" },
    },
    layer("platform", ["household", "care", "app"]),
    layer("household", ["care", "app"]),
    layer("care", ["app"]),
    {
      name: "vocabulary-stands-alone",
      comment: "vocabulary/ (the household's data types) is the ground floor: it imports nothing of the code above it",
      severity: "error",
      from: { path: "^vocabulary/" },
      to: { path: "^(runtime|nodes|editor-plugins|tts|settings)" },
    },
    { name: "runtime-not-on-tests", severity: "error", from: { path: "^(runtime|nodes|tts|editor-plugins)/" }, to: { path: "^(test|bench)/" } },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules)/" },
  },
};
