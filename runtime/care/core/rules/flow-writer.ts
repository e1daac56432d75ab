/**
 * The one way REST changes flows: read the current flows, let a change edit a draft,
 * validate, deploy, all serialized so two REST writes never interleave. With Node-RED
 * embedded the deploy goes through its runtime (so the change is live at once, and an
 * editor deploy in between is caught by the revision check and retried); without it the
 * draft is written straight to the store. Both end in `saveFlowsWithIndex`.
 */
import type { Knex } from "knex";
import { ConflictError, ValidationError } from "../../../platform/core/errors";
import { readFlows, writeFlows, type FlowNode } from "../../../platform/nodered/flow-store";
import { FlowDraft } from "./flow-draft";
import { DeployRejected, refusalDetail, type DeployReport } from "./flow-validation";
import { syncRuleIndex } from "./index-sync";
import { bumpRulesVersion, rulesVersion } from "./rules-version";
import type { RuleIndex } from "./rule-model";
import { KeptRead } from "./kept-read";

export interface FlowSource {
  /** The current flows; with several instances, after running a deploy made elsewhere if there is one. */
  read(): Promise<{ flows: FlowNode[]; rev?: string }>;
  /** The flows running here now, without looking for a deploy made elsewhere (absent: `read`). */
  running?(): Promise<{ flows: FlowNode[] }>;
  deploy(flows: readonly FlowNode[], rev?: string): Promise<void>;
}

/** The deploy check (`checkDeploy` with the household and settings at hand): new flows against the stored ones. */
export type DeployChecker = (flows: readonly FlowNode[], previous: readonly FlowNode[]) => Promise<DeployReport>;

/** Validation, flow rows and id index in one transaction: what every deploy persists. */
export async function saveFlowsWithIndex(db: Knex, flows: readonly FlowNode[], now: string, check: DeployChecker): Promise<DeployReport> {
  const report = await check(flows, await readFlows(db));
  if (report.refused.length) throw new DeployRejected(report.refused);
  await db.transaction(async (trx) => {
    await writeFlows(trx, flows);
    await syncRuleIndex(trx, flows, now);
  });
  bumpRulesVersion(db);
  return report;
}

export const directFlowSource = (db: Knex, now: () => string, check: DeployChecker): FlowSource => ({
  read: async () => ({ flows: await readFlows(db) }),
  deploy: async (flows) => void (await saveFlowsWithIndex(db, flows, now(), check)),
});

export async function readIndex(db: Knex): Promise<RuleIndex> {
  const [rules, steps, contexts] = await Promise.all([db("rules").select("*"), db("rule_steps").select("*"), db("rule_contexts").select("*")]);
  return { rules, steps, contexts };
}

const isVersionMismatch = (err: unknown): boolean => (err as { code?: string } | null)?.code === "version_mismatch";

/**
 * How long a read keeps the id index it read: changes made here are seen at once (the rules
 * version, and `forgetIndex` at each deploy that starts); this bounds an index-only change made
 * through another instance (a step reorder).
 */
const INDEX_MAX_AGE_MS = 1000;

const frozenIndex = (index: RuleIndex): RuleIndex => {
  for (const rows of [index.rules, index.steps, index.contexts]) {
    for (const row of rows) Object.freeze(row);
    Object.freeze(rows);
  }
  return Object.freeze(index);
};

export class FlowWriter {
  private queue: Promise<unknown> = Promise.resolve();
  private forgotten = 0;
  private readonly keptIndex = new KeptRead<RuleIndex>(INDEX_MAX_AGE_MS, Date.now);

  constructor(
    private readonly db: Knex,
    private readonly source: FlowSource,
    private readonly check: DeployChecker,
  ) {}

  /**
   * Current flows and index, for reads (every rule fired reads them); `catchUp: false` takes the
   * flows running here without looking for a deploy made elsewhere first. The index is shared
   * between reads and frozen; it is read again after any rule write here, any deploy that
   * starts (`forgetIndex`), and at the latest a second after it was read.
   */
  async snapshot(opts: { catchUp?: boolean } = {}): Promise<{ flows: FlowNode[]; index: RuleIndex }> {
    // The flows first: with several instances reading them may run a deploy made elsewhere, which forgets the index.
    const { flows } = opts.catchUp === false && this.source.running ? await this.source.running() : await this.source.read();
    return { flows, index: await this.index() };
  }

  /** A deploy started (flows changed, here or elsewhere): the next read reads the index again. */
  forgetIndex(): void {
    this.forgotten++;
    this.keptIndex.forget();
  }

  private index(): Promise<RuleIndex> {
    return this.keptIndex.get(`${this.forgotten}:${rulesVersion(this.db)}`, () => readIndex(this.db).then(frozenIndex));
  }

  /** Run `edit` on a draft of the current flows and deploy the result; returns edit's value. */
  change<T>(edit: (draft: FlowDraft, index: RuleIndex) => T | Promise<T>): Promise<T> {
    const run = this.queue.then(() => this.attempt(edit, 3));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async attempt<T>(edit: (draft: FlowDraft, index: RuleIndex) => T | Promise<T>, triesLeft: number): Promise<T> {
    const [{ flows, rev }, index] = await Promise.all([this.source.read(), readIndex(this.db)]);
    const draft = new FlowDraft(flows);
    const result = await edit(draft, index);
    const { refused } = await this.check(draft.nodes, flows);
    if (refused.length) throw new ValidationError(refusalDetail(refused));
    try {
      await this.source.deploy(draft.nodes, rev);
    } catch (err) {
      if (isVersionMismatch(err)) {
        if (triesLeft > 1) return this.attempt(edit, triesLeft - 1);
        throw new ConflictError("The flows kept changing while this change was applied; try again");
      }
      if (err instanceof DeployRejected) throw new ValidationError(refusalDetail(err.problems));
      throw err;
    }
    return result;
  }
}
