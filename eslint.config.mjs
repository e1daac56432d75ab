// typescript-eslint's recommended rules, without type information (fast enough to run before
// every `npm test`). `any` is refused in the service's code and allowed in tests and benchmarks.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "data/", "test-output/", "nodes/registry.generated.ts", ".stryker-tmp/", "reports/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/no-require-imports": "off",
    },
  },
  {
    // Node scripts in plain JavaScript (docs/examples, npm run mutation's).
    files: ["docs/**/*.mjs", "stryker/**/*.mjs"],
    languageOptions: { sourceType: "module", globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly", __dirname: "readonly", process: "readonly" } },
  },
  {
    // The Knowledge page's plain scripts share their `kp…` functions as page globals, each
    // defined in one script and used by the next (tsc checks them together).
    files: ["editor-plugins/knowledge-page/browser/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^(_|kp|Kp|KP_)", destructuredArrayIgnorePattern: "^_", caughtErrors: "none" },
      ],
    },
  },
  {
    // The Household page's scripts share their `hp…` functions the same way.
    files: ["editor-plugins/household-page/browser/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^(_|hp|Hp|HP_)", destructuredArrayIgnorePattern: "^_", caughtErrors: "none" },
      ],
    },
  },
  {
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-non-null-assertion": "off" },
  },
);
