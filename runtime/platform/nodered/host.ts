/**
 * The embedded Node-RED runtime. Node-RED keeps module-level state and cannot be started
 * again in a process after it stops, so one host per process owns it and the app that is
 * current *attaches* to it: the storage module, the admin login and the logger all read
 * the attached target at each call. A second app in the same process (tests) re-attaches,
 * and the runtime reloads its flows from the new store.
 */
import { EventEmitter } from "node:events";
import fs from "node:fs";
import path from "node:path";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Knex } from "knex";
import type { KeyStore } from "../auth/key-store";
import type { Logger } from "../core/logger";
import { adminAuthSettings, LOGIN_MESSAGE } from "./admin-auth";
import { createStorageModule, type FlowNode } from "./flow-store";
import { redLogging } from "./log-bridge";
import { EXCLUDED_CORE_NODES, nodesIncluded } from "./node-files";
import { loadRed, type Red, type RedHooks } from "./red";
import { PALETTE_ORDER } from "../../../editor-plugins/node-forms/editor-html";

export type NodeRedState = "stopped" | "starting" | "started" | "error" | "disabled";

export const EDITOR_ROOT = "/editor";

export interface HostTarget {
  db: Knex;
  keys: KeyStore;
  log: Logger;
  now: () => string;
  credentialSecret: string;
  userDir: string;
  logLevel: string;
  /** Folder of our compiled node package (added by the node kit). */
  nodesDir?: string;
  /** Scripts added to the editor's page, run before the login too. */
  pageScripts?: string[];
  /** Services handed to our nodes through `RED.settings.careflow`. */
  services?: Record<string, unknown>;
  saveFlows: (flows: readonly FlowNode[]) => Promise<void>;
  /** After every (re)start of the flows, once the runtime holds the new ones. */
  onFlowsStarted?: () => void;
}

const FLOWS_STARTED_TIMEOUT_MS = 15000;

type RuntimeEvent = { id?: string; payload?: { error?: string; type?: string } };
/** Node-RED's word that the flows could not start: a deploy under way has ended, badly. */
const startFailed = (e: RuntimeEvent): e is RuntimeEvent & { payload: { error: string } } => e.id === "runtime-state" && !!e.payload?.error;

/**
 * The editor passes a notification's text through i18next as a message key: `:` splits off a
 * namespace (the text before the first one was dropped), and `{{x}}` and `__x__` are
 * interpolated. As character references in the text between tags they show as themselves.
 */
export const i18nProof = (html: string): string =>
  html.replace(/(^|>)([^<]*)/g, (_m, open: string, text: string) => open + text.replace(/[:{}_]/g, (c) => `&#${c.charCodeAt(0)};`));

class NodeRedHost {
  state: NodeRedState = "stopped";
  private red?: Red;
  /** A deploy under way: from Node-RED stopping the old flows until the new ones run (or fail to). */
  private deploy: { done: Promise<void>; end: () => void } | null = null;
  private target?: HostTarget;
  private starting?: Promise<void>;
  private shutDown = false;
  /** Numbers each editor notification, so none reuses an earlier one's id. */
  private notices = 0;
  /** Node-RED listens for WebSocket upgrades here; the app forwards editor upgrades. */
  private readonly upgrades = new EventEmitter();

  private current(): HostTarget {
    if (!this.target) throw new Error("Node-RED host has no attached app");
    return this.target;
  }

  async attach(target: HostTarget): Promise<void> {
    this.target = target;
    if (!this.red) {
      this.starting = this.boot();
      return this.starting;
    }
    await this.starting;
    this.state = "starting";
    await this.whenFlowsStarted(() => this.red!.runtime.flows.setFlows({ deploymentType: "reload" }));
  }

  /** Node-RED was started in this process (it runs until `shutdown`, whichever app is attached). */
  get booted(): boolean {
    return this.red !== undefined;
  }

  detach(target: HostTarget): void {
    if (this.target === target) this.state = this.red ? "stopped" : this.state;
  }

  private async boot(): Promise<void> {
    const t = this.current();
    this.state = "starting";
    fs.mkdirSync(t.userDir, { recursive: true });
    // Node-RED reads the user dir's package.json for installed palette modules.
    const pkg = path.join(t.userDir, "package.json");
    if (!fs.existsSync(pkg)) fs.writeFileSync(pkg, JSON.stringify({ name: "careflow-node-red-user", private: true }) + "\n");
    const red = loadRed();
    red.init(this.upgrades, this.settings(t));
    this.red = red;
    red.events.on("flows:stopping", () => this.deployStarts());
    red.events.on("flows:started", () => {
      this.deployEnds();
      this.target?.onFlowsStarted?.();
    });
    red.events.on("runtime-event", (e: RuntimeEvent) => {
      if (startFailed(e)) this.deployEnds();
    });
    await this.whenFlowsStarted(() => red.start());
  }

  private settings(t: HostTarget): Record<string, unknown> {
    // Arrow functions keep this host: the settings object's own getter below has another `this`.
    const current = () => this.current();
    const services = () => this.target?.services ?? {};
    return {
      httpAdminRoot: EDITOR_ROOT,
      httpNodeRoot: "/",
      // Node-RED arms this timer on every upgrade to close one nobody answered. Only the editor's
      // comms upgrades reach it, answered at once, so a second suffices and no timer of a closed
      // editor connection lingers five.
      inboundWebSocketTimeout: 1000,
      userDir: t.userDir,
      ...(t.nodesDir && fs.existsSync(t.nodesDir) ? { nodesDir: t.nodesDir } : {}),
      storageModule: createStorageModule(() => {
        const c = current();
        return { db: c.db, now: c.now, saveFlows: c.saveFlows };
      }),
      credentialSecret: t.credentialSecret,
      adminAuth: adminAuthSettings(() => current().keys),
      logging: redLogging(() => current().log.child({ component: "node-red" }), t.logLevel),
      editorTheme: {
        page: { title: "careflow editor", scripts: (t.pageScripts ?? []).filter((f) => fs.existsSync(f)) },
        header: { title: "careflow" },
        login: { message: LOGIN_MESSAGE },
        projects: { enabled: false },
        tours: false,
        palette: { catalogues: [] },
      },
      externalModules: { autoInstall: false, palette: { allowInstall: false, allowUpload: false }, modules: { allowInstall: false } },
      functionExternalModules: false,
      telemetry: { enabled: false, updateNotification: false },
      paletteCategories: PALETTE_ORDER,
      nodesIncludes: nodesIncluded(t.nodesDir),
      nodesExcludes: EXCLUDED_CORE_NODES,
      // Read by our nodes; a getter so a re-attached app's services are the ones seen.
      get careflow() {
        return services();
      },
    };
  }

  private deployStarts(): void {
    if (this.deploy) return;
    let end = () => {};
    const done = new Promise<void>((resolve) => (end = resolve));
    this.deploy = { done, end };
  }

  private deployEnds(): void {
    this.deploy?.end();
    this.deploy = null;
  }

  /**
   * Resolves once a deploy under way has its flows running (at once when none is), or after
   * the time Node-RED is given to start them. Between Node-RED stopping the old flows and
   * starting the new ones a rule's nodes are not there, though its flow is already the one
   * Node-RED reports.
   */
  async flowsRunning(): Promise<void> {
    const deploy = this.deploy;
    if (!deploy) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([deploy.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, FLOWS_STARTED_TIMEOUT_MS)))]);
    clearTimeout(timer);
  }

  /** Run `action` and resolve once Node-RED reports the flows started (or failed to). */
  private whenFlowsStarted(action: () => Promise<unknown>): Promise<void> {
    const red = this.red!;
    const before = this.state;
    return new Promise<void>((resolve, reject) => {
      const finish = (state: NodeRedState, err?: Error) => {
        clearTimeout(timer);
        red.events.off("flows:started", onStarted);
        red.events.off("runtime-event", onRuntimeEvent);
        this.state = state;
        if (err) reject(err);
        else resolve();
      };
      const onStarted = () => finish("started");
      const onRuntimeEvent = (e: RuntimeEvent) => {
        if (startFailed(e)) {
          this.current().log.error({ component: "node-red", error: e.payload.error }, "Node-RED could not start the flows");
          finish("error");
        }
      };
      const timer = setTimeout(() => {
        this.current().log.error({ component: "node-red" }, "Node-RED flows did not start in time");
        finish("error");
      }, FLOWS_STARTED_TIMEOUT_MS);
      red.events.on("flows:started", onStarted);
      red.events.on("runtime-event", onRuntimeEvent);
      // A refused action (a stale revision, a rejected deploy) leaves the running flows as they were.
      action().catch((err: Error) => finish(before === "starting" ? "error" : before, err));
    });
  }

  readonly admin: RequestHandler = (req: Request, res: Response, next: NextFunction) => (this.red ? this.red.httpAdmin(req, res, next) : next());

  readonly httpNode: RequestHandler = (req: Request, res: Response, next: NextFunction) => (this.red ? this.red.httpNode(req, res, next) : next());

  /** Hand an editor WebSocket upgrade to Node-RED; false when the path is not the editor's. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    if (!this.red || !(req.url ?? "").startsWith(`${EDITOR_ROOT}/`)) return false;
    this.upgrades.emit("upgrade", req, socket, head);
    return true;
  }

  /**
   * A notification in every open editor (Node-RED's `notification/<id>` comms topic; `html` is
   * shown as is). Each gets its own id: the editor keeps the first notification of an id for good
   * and only updates it afterwards, even once it has closed, so a second deploy's warnings under
   * the same id were never shown.
   */
  notifyEditors(id: string, html: string, type: "warning" | "error" | "success", timeoutMs = 20000): void {
    const topic = `notification/${id}-${++this.notices}`;
    this.red?.events.emit("comms", { topic, data: { text: i18nProof(html), type, timeout: timeoutMs } });
  }

  /** Node-RED's message hooks, once it runs. */
  hooks(): RedHooks | undefined {
    return this.red?.hooks;
  }

  /** The live instance of a node, as the running flows hold it now. */
  getNode<T>(id: string): T | undefined {
    return (this.red?.nodes.getNode(id) as T | null) ?? undefined;
  }

  /** The running flows and their revision, as Node-RED holds them. */
  async getFlows(): Promise<{ flows: FlowNode[]; rev: string }> {
    if (!this.red) throw new Error("Node-RED is not running");
    const r = await this.red.runtime.flows.getFlows({});
    return { flows: r.flows as FlowNode[], rev: r.rev };
  }

  /**
   * Deploy changed flows (Node-RED saves them through our storage module) and resolve once
   * they run. A stale `rev` is refused by Node-RED with a version mismatch.
   */
  async setFlows(flows: readonly FlowNode[], rev?: string): Promise<void> {
    if (!this.red) throw new Error("Node-RED is not running");
    const red = this.red;
    await this.whenFlowsStarted(() => red.runtime.flows.setFlows({ flows: { flows: [...flows], ...(rev ? { rev } : {}) }, deploymentType: "flows" }));
  }

  /** Runs the stored flows again (after the store was changed under the running flows). */
  async reloadFlows(): Promise<void> {
    if (!this.red) throw new Error("Node-RED is not running");
    const red = this.red;
    await this.whenFlowsStarted(() => red.runtime.flows.setFlows({ deploymentType: "reload" }));
  }

  /**
   * Stops Node-RED's flows and editor, once, for the process's end. Not by the state: detaching
   * the app (its close, which comes first) marks it stopped while the runtime and the editor's
   * heartbeat timer still run, so the flows' close handlers never ran and a process that did
   * not exit by hand stayed up.
   */
  async shutdown(): Promise<void> {
    const red = this.red;
    if (!red || this.shutDown) return;
    this.shutDown = true;
    await red.stop();
    this.state = "stopped";
  }
}

export const nodeRedHost = new NodeRedHost();
