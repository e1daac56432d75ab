/**
 * The Node-RED editor's globals, as far as careflow's browser code uses them: `RED`, jQuery
 * (`$`, with jQuery UI's `dialog` and Node-RED's `autoComplete` widget) and what careflow puts
 * on `window` itself. Hand-written and narrow on purpose: a call not listed here does not
 * type-check, so a new use adds its line. Only the browser build (tsconfig.browser.json)
 * includes this file.
 */

// ---- jQuery --------------------------------------------------------------------------------

/** An ajax request's promise (jqXHR): `T` is the JSON the caller expects back. */
interface JQueryXHR<T = unknown> {
  done(callback: (data: T) => void): JQueryXHR<T>;
  fail(callback: (xhr: JQueryXHR<T>) => void): JQueryXHR<T>;
  always(callback: () => void): JQueryXHR<T>;
  responseJSON?: unknown;
  statusText: string;
}

interface JQueryAjaxSettings {
  method: string;
  url: string;
  contentType?: string;
  data?: string;
}

/** jQuery UI's dialog button. */
interface JQueryDialogButton {
  text: string;
  class?: string;
  click: (this: HTMLElement) => void;
}

interface JQueryDialogOptions {
  title: string;
  modal: boolean;
  width: number;
  buttons: JQueryDialogButton[];
  close: (this: HTMLElement) => void;
}

/** Node-RED's `autoComplete` widget: `search` returns the completions (or hands them to `done`). */
interface JQueryAutoCompleteOptions {
  search: (value: string, done?: (completions: Array<{ value: string; label: string }>) => void) => Array<{ value: string; label: string }>;
}

/** What `.val()` reads: text for inputs, textareas and selects; nothing for an empty set. */
type JQueryValue = string | number | string[] | null | undefined;

interface JQuery {
  readonly length: number;
  text(): string;
  text(value: string): JQuery;
  val(): JQueryValue;
  val(value: string | number): JQuery;
  attr(name: string): string | undefined;
  attr(name: string, value: string): JQuery;
  prop(name: "checked" | "disabled"): boolean;
  prop(name: "checked" | "disabled", value: boolean): JQuery;
  css(name: string, value: string): JQuery;
  data(key: string): unknown;
  data(key: string, value: unknown): JQuery;
  addClass(name: string): JQuery;
  removeClass(name: string): JQuery;
  hasClass(name: string): boolean;
  is(selector: string | JQuery): boolean;
  on(events: string, handler: (this: HTMLElement, event: Event) => void): JQuery;
  on(events: string, selector: string, handler: (this: HTMLElement, event: Event) => void): JQuery;
  trigger(event: string): JQuery;
  append(content: JQuery): JQuery;
  appendTo(target: string | JQuery): JQuery;
  prependTo(target: string | JQuery): JQuery;
  insertAfter(target: JQuery): JQuery;
  find(selector: string): JQuery;
  closest(selector: string): JQuery;
  children(): JQuery;
  prev(): JQuery;
  next(): JQuery;
  empty(): JQuery;
  show(): JQuery;
  hide(): JQuery;
  toggle(show?: boolean): JQuery;
  each<E extends Element = HTMLElement>(callback: (this: E, index: number, element: E) => void): JQuery;
  map<T, E extends Element = HTMLElement>(callback: (this: E, index: number, element: E) => T): { get(): T[] };
  dialog(options: JQueryDialogOptions): JQuery;
  dialog(method: "close" | "destroy"): JQuery;
  autoComplete(options: JQueryAutoCompleteOptions): JQuery;
  remove(): JQuery;
}

interface JQueryStatic {
  (selector: string | Element | Window | Document): JQuery;
  getJSON<T = unknown>(url: string, success?: (data: T) => void): JQueryXHR<T>;
  getJSON<T = unknown>(url: string, data: Record<string, string>): JQueryXHR<T>;
  ajax<T = unknown>(settings: JQueryAjaxSettings): JQueryXHR<T>;
  extend<A extends object, B extends object>(target: object, a: A, b: B): A & B;
  fn: { autoComplete?: unknown };
}

declare const $: JQueryStatic;

// ---- Node-RED ------------------------------------------------------------------------------

/** A node's status dot and text on the canvas. */
interface RedNodeStatus {
  fill?: string;
  shape?: string;
  text?: string;
}

/** A node as the editor holds it (only the fields careflow reads or sets). */
interface RedNode {
  id: string;
  type: string;
  z?: string;
  config?: Record<string, unknown>;
  status?: RedNodeStatus;
  dirty?: boolean;
  dirtyStatus?: boolean;
}

/** A node as a deploy sends it. */
interface RedExportedNode {
  id: string;
  [field: string]: unknown;
}

interface RedWorkspace {
  label: string;
  disabled?: boolean;
}

interface RedSidebarTab {
  id: string;
  label: string;
  name: string;
  iconClass: string;
  content: JQuery;
  enableOnEdit: boolean;
  onchange: () => void;
}

interface RedPluginDefinition {
  type: string;
  onadd: () => void;
}

interface RedEditor {
  plugins: { registerPlugin(id: string, definition: RedPluginDefinition): void };
  nodes: {
    node(id: string): RedNode | null | undefined;
    eachNode(callback: (node: RedNode) => void): void;
    filterNodes(filter: { z: string }): RedNode[];
    workspace(id: string): RedWorkspace | null | undefined;
    /** The tabs' ids in the order the editor shows them. */
    getWorkspaceOrder(): string[];
    createExportableNodeSet(nodes: RedNode[]): RedExportedNode[];
    dirty(): boolean;
  };
  editor: { validateNode(node: RedNode): void };
  view: {
    redraw(full: boolean): void;
    reveal(id: string): void;
    importNodes(nodes: RedExportedNode[], options: { generateIds: boolean; addFlow: boolean; notify?: boolean }): void;
  };
  workspaces: { active(): string; contains(id: string): boolean; show(id: string): void };
  events: { on(event: string, handler: () => void): void };
  sidebar: { addTab(tab: RedSidebarTab): void; show(id: string): void };
  comms: { subscribe(topic: string, handler: (topic: string, message: unknown) => void): void };
  notify(message: string, type: string): void;
  /**
   * careflow's own: the runs sidebar's "Run now" (for the rule trigger node's button) and its
   * display of a run's path on the canvas (for the rehearsal's runs).
   */
  careflow?: {
    runNow?: (tabId: string) => void;
    openRun?: (executionId: number) => void;
    showPath?: (path: CareflowRunPath | null | undefined, reveal: boolean) => void;
    clearPath?: () => void;
    rehearse?: (tabId: string, window: string) => void;
    /** The runs sidebar's live link: try it now (it tries by itself on its schedule). */
    checkLive?: () => void;
  };
}

declare const RED: RedEditor;

/** Where a run went on a rule's tab (runtime/care/core/pipeline/runs/run-detail.ts `RunPath`). */
interface CareflowRunPath {
  tab_id: string;
  focus?: string | null;
  nodes: Array<{ node_id: string; state: string; text?: string }>;
  links: Array<{ source: string; port: number }>;
}

// ---- careflow on window ----------------------------------------------------------------------

/** A field of a care node's config as its JSON Schema describes it (with careflow's markers). */
interface CareflowSchemaField {
  anyOf?: CareflowSchemaField[];
  type?: string | string[];
  enum?: unknown[];
  items?: CareflowSchemaField;
  /** A nested object's fields (the trigger's `cts_window_config`). */
  properties?: Record<string, CareflowSchemaField>;
  required?: string[];
  /** A household picker: sensor, room, person or tracking camera (`cts_camera`). */
  ref?: string;
  /** An approved info card or quiz of the knowledge repository (nodes/_kit/fields.ts `knowledgeRef`). */
  knowledge?: string;
  multiline?: boolean;
  /** The notification's `channels`: left out means the alert level's default channels. */
  level_channels?: boolean;
  /** A notification's message: the form previews it for each receiver, in their language (issue 49). */
  words_preview?: boolean;
  template?: boolean;
  expression?: boolean;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  description?: string;
  /** A label for people where the config key would not do (`chat_app_template`: "Chat message"). */
  title?: string;
  default?: unknown;
}

/** A care node type's config schema. */
interface CareflowSchema {
  properties?: Record<string, CareflowSchemaField>;
  required?: string[];
}

/** What a form needs of the node it edits. */
interface CareflowFormNode {
  id: string;
  z?: string;
  config?: Record<string, unknown>;
}

/** A problem the server's validator found, as `careflow/check-tab` sends it. */
interface CareflowProblem {
  node_id: string;
  severity: string;
  text: string;
  message: string;
  field?: string;
  position?: number;
  suggestion?: string;
}

/** The shared form builder of every care node's edit dialog (editor-plugins/node-forms/browser/form.ts). */
interface CareflowForm {
  prepare(node: CareflowFormNode, schema: CareflowSchema, type: string): void;
  /** Reads the form into `node.config`; true when the config differs from the one the dialog opened with. */
  save(node: { config?: Record<string, unknown> }, schema: CareflowSchema, type: string): boolean;
  problems(config: unknown, schema: CareflowSchema): string[];
  valid(config: unknown, schema: CareflowSchema, node?: { id: string }): boolean;
  serverErrors: Record<string, string[]>;
}

/** The notification form's channels field (editor-plugins/node-forms/browser/channels-field.ts). */
interface CareflowChannelsField {
  render(name: string, channels: unknown[], value: unknown, checkbox: (value: string, label: string, checked: boolean) => JQuery): JQuery;
  watchAudience(root: JQuery, draft: () => Record<string, unknown>): void;
}

/** The form checks plugin (editor-plugins/form-checks/browser/checks.ts). */
interface CareflowChecks {
  checkNode(node: CareflowFormNode, config: Record<string, unknown> | undefined, done: (problems: CareflowProblem[]) => void): void;
  checkActiveTab(): void;
}

interface Window {
  careflowForm: CareflowForm;
  careflowChannelsField: CareflowChannelsField;
  careflowChecks?: CareflowChecks;
}
