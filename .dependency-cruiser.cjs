/**
 * The layers of runtime/ import only downward (platform ← household ← care ← app), node
 * types never import runtime/ (they get the care-services seam), and nothing imports in a
 * circle. `npm run check` runs this; `npm run graph` draws docs/architecture-graph.svg.
 */
const layer = (name, above) => ({
  name: `${name}-imports-downward`,
  comment: `runtime/${name} may not import ${above.join(", ")}`,
  severity: "error",
  from: { path: `^runtime/${name}/` },
  to: { path: `^runtime/(${above.join("|")})/` },
});

module.exports = {
  forbidden: [
    // A few type cycles inside the engine (a run's state and its stored row, the writers and
    // their factory) are tolerated; no other circle, of values or of types.
    { name: "no-circular", severity: "error", from: { pathNot: "^runtime/care/pipeline/engine/" }, to: { circular: true } },
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
    { name: "runtime-not-on-tests", severity: "error", from: { path: "^(runtime|nodes|tts|editor-plugins)/" }, to: { path: "^(test|bench)/" } },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules)/" },
  },
};
