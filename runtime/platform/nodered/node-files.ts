/**
 * Which node files and packages the embedded Node-RED loads: its core nodes but the ones a
 * care appliance should not offer, and careflow's own node package.
 *
 * The include list is what keeps start-up short. Without one, Node-RED looks for palette
 * packages in every `node_modules` folder above its core nodes, which is the project's own:
 * it reads the package.json of each of the ~600 packages there (about 120 ms of a 1.7 s
 * start on a small box) and finds none, because careflow installs no palette modules.
 * Node-RED names each candidate by its file or folder name, so the list is those names,
 * read from the core nodes' folder rather than kept by hand.
 */
import fs from "node:fs";
import path from "node:path";

// Core nodes a care appliance should not offer: shell, file system, raw sockets and
// brokers (the hub and tracking streams have their own typed clients).
export const EXCLUDED_CORE_NODES = [
  "90-exec.js",
  "10-file.js",
  "23-watch.js",
  "31-tcpin.js",
  "32-udp.js",
  "10-mqtt.js",
  "22-websocket.js",
  "06-httpproxy.js",
  "05-tls.js",
  "70-CSV.js",
  "70-HTML.js",
  "70-XML.js",
  "70-YAML.js",
  "18-sort.js",
  "19-batch.js",
];

/**
 * The file names of Node-RED's core nodes (`core/<category>/NN-name.js`), found as Node-RED
 * finds them (from its own package, wherever npm placed `@node-red/nodes`); null when they
 * cannot be read.
 */
function coreNodeFiles(): string[] | null {
  try {
    const fromRed = path.dirname(require.resolve("node-red/package.json"));
    const core = path.join(path.dirname(require.resolve("@node-red/nodes/package.json", { paths: [fromRed] })), "core");
    return fs
      .readdirSync(core, { recursive: true, encoding: "utf8" })
      .map((f) => path.basename(f))
      .filter((f) => /\.c?js$/.test(f));
  } catch {
    return null;
  }
}

/**
 * Node-RED's `nodesIncludes`: the core node files and the folder name of careflow's package.
 * Undefined (Node-RED loads everything it finds, more slowly) when the core nodes cannot be
 * listed: a slower start, never a palette without its nodes.
 */
export function nodesIncluded(nodesDir: string | undefined): string[] | undefined {
  const core = coreNodeFiles();
  return core ? [...core, ...(nodesDir ? [path.basename(nodesDir)] : [])] : undefined;
}
