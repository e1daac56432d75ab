/**
 * Alerts: raised by warning and emergency notifications, acknowledged by a caregiver.
 * `dismiss` resolves an alert; `assist` marks that help is needed and escalates it.
 * Every action is recorded with who took it.
 */
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { ConflictError, NotFoundError } from "../../platform/core/errors";
import { parseInput } from "../../platform/core/validation";
import { toBool } from "../../platform/db/json-column";
import { storedSpellings } from "../../platform/db/name-match";

export interface AlertAction {
  id: number;
  action: "dismiss" | "assist";
  actor: string;
  note: string | null;
  created_at: string;
}

export interface Alert {
  id: number;
  timestamp: string;
  alert_type: string;
  level: string;
  description: string;
  room_name: string | null;
  sensor_id: string | null;
  rule_id: number | null;
  execution_id: number | null;
  image_url: string | null;
  resolved: boolean;
  resolved_at: string | null;
  resolved_by: string | null;
  assistance_needed: boolean;
  assisted_at: string | null;
  escalation_count: number;
  next_escalation_at: string | null;
  actions: AlertAction[];
  /** Every send, delivery, failure, acknowledgement and edit, oldest first (only on a single alert). */
  history?: AlertHistoryEntry[];
}

/** One line of an alert's history, timestamped to the second. */
export interface AlertHistoryEntry {
  at: string;
  /** `sent` (a channel was tried), `delivered`, `failed`, `acknowledged`, `resolved`, `edited`. */
  event: string;
  channel: string | null;
  /** The chat target's name, the actor of an acknowledgement. */
  target: string | null;
  /** 0: the first send; n: the n-th re-send. */
  escalation: number;
  detail: string | null;
}

export interface NewHistoryEntry {
  event: string;
  channel?: string | null;
  target?: string | null;
  escalation?: number;
  detail?: string | null;
  /** What a later edit finds the message by (a chat message's `chat_id:message_id`). */
  ref?: string | null;
}

type AlertRow = Omit<Alert, "resolved" | "assistance_needed" | "actions" | "history"> & {
  resolved: unknown;
  assistance_needed: unknown;
};

/**
 * The columns an alert is shown with. Named, not `*`: the send's plan (`notification_json`, a
 * channel's options such as a webhook address), its idempotency key and the re-send count are
 * careflow's own; and SQLite rows of more columns come back as slow dictionary objects (the
 * alerts list of 50 spent more in copying its rows than in reading them).
 */
const ALERT_COLUMNS: Array<keyof AlertRow> = [
  "id",
  "timestamp",
  "alert_type",
  "level",
  "description",
  "room_name",
  "sensor_id",
  "rule_id",
  "execution_id",
  "image_url",
  "resolved",
  "resolved_at",
  "resolved_by",
  "assistance_needed",
  "assisted_at",
  "escalation_count",
  "next_escalation_at",
];

export interface AlertFilters {
  resolved?: boolean;
  room_name?: string;
  alert_type?: string;
  limit: number;
  offset: number;
}

const toAlert = (row: AlertRow, actions: AlertAction[]): Alert => ({
  ...row,
  resolved: toBool(row.resolved),
  assistance_needed: toBool(row.assistance_needed),
  actions,
});

export async function listAlerts(ctx: PlatformContext, f: AlertFilters): Promise<Alert[]> {
  const q = ctx.db<AlertRow>("alerts").select(ALERT_COLUMNS).orderBy("timestamp", "desc").orderBy("id", "desc").limit(f.limit).offset(f.offset);
  if (f.resolved !== undefined) q.where("resolved", f.resolved);
  // The room in any case or Unicode spelling ('küche' finds 'KÜCHE'), the same on both stores.
  if (f.room_name !== undefined) q.whereIn("room_name", await storedSpellings(ctx.db, "alerts", "room_name", f.room_name));
  if (f.alert_type !== undefined) q.where("alert_type", f.alert_type);
  const rows = await q;
  const actions = rows.length
    ? await ctx
        .db<AlertAction & { alert_id: number }>("alert_actions")
        .whereIn(
          "alert_id",
          rows.map((r) => r.id),
        )
        .orderBy("id")
    : [];
  return rows.map((row) => toAlert(row, actions.filter((a) => a.alert_id === row.id).map(stripAlertId)));
}

/** Alerts raised with `since <= timestamp < until`, oldest first, each with its actions (daily reports). */
export async function alertsRaisedBetween(ctx: PlatformContext, since: string, until: string): Promise<Alert[]> {
  const rows = await ctx
    .db<AlertRow>("alerts")
    .select(ALERT_COLUMNS)
    .where("timestamp", ">=", since)
    .andWhere("timestamp", "<", until)
    .orderBy("timestamp")
    .orderBy("id");
  const actions = rows.length
    ? await ctx
        .db<AlertAction & { alert_id: number }>("alert_actions")
        .whereIn(
          "alert_id",
          rows.map((r) => r.id),
        )
        .orderBy("id")
    : [];
  return rows.map((row) => toAlert(row, actions.filter((a) => a.alert_id === row.id).map(stripAlertId)));
}

const stripAlertId = ({ alert_id: _alertId, ...a }: AlertAction & { alert_id: number }): AlertAction => a;

export async function getAlert(ctx: PlatformContext, id: number): Promise<Alert> {
  const row = await ctx.db<AlertRow>("alerts").where({ id }).first(ALERT_COLUMNS);
  if (!row) throw new NotFoundError(`Alert ${id} not found`);
  const actions = await ctx.db<AlertAction & { alert_id: number }>("alert_actions").where({ alert_id: id }).orderBy("id");
  const history: AlertHistoryEntry[] = await ctx
    .db("alert_history")
    .where({ alert_id: id })
    .orderBy("id")
    .select("at", "event", "channel", "target", "escalation", "detail");
  return { ...toAlert(row, actions.map(stripAlertId)), history };
}

/** The second an event happened, as the history keeps it. */
const toSecond = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

/** Adds lines to an alert's history (never throws: a history that cannot be written is logged, the send stands). */
export async function recordAlertHistory(ctx: PlatformContext, alertId: number, entries: NewHistoryEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const at = toSecond(ctx.clock.now());
  try {
    await ctx.db("alert_history").insert(
      entries.map((e) => ({
        alert_id: alertId,
        at,
        event: e.event,
        channel: e.channel ?? null,
        target: e.target ?? null,
        escalation: e.escalation ?? 0,
        detail: e.detail === undefined || e.detail === null ? null : e.detail.slice(0, 2000),
        ref: e.ref ?? null,
      })),
    );
  } catch (err) {
    ctx.log.warn({ err, alert_id: alertId }, "alert history not written");
  }
}

/** The channel receipts of an alert's first send (escalation 0), in the order they were recorded. */
export async function firstSendReceipts(
  ctx: PlatformContext,
  alertId: number,
): Promise<Array<{ channel: string | null; delivered: boolean; detail: string | null }>> {
  const lines: Array<{ event: string; channel: string | null; detail: string | null }> = await ctx
    .db("alert_history")
    .where({ alert_id: alertId, escalation: 0 })
    .whereIn("event", ["delivered", "failed"])
    .orderBy("id")
    .select("event", "channel", "detail");
  return lines.map((l) => ({ channel: l.channel, delivered: l.event === "delivered", detail: l.detail }));
}

/** The refs of an alert's history lines of a channel and event (a chat's messages to edit), with their target. */
export async function alertHistoryRefs(
  ctx: PlatformContext,
  alertId: number,
  channel: string,
  event: string,
): Promise<Array<{ ref: string; target: string | null }>> {
  return ctx.db("alert_history").where({ alert_id: alertId, channel, event }).whereNotNull("ref").orderBy("id").select("ref", "target");
}

/** The alert whose history holds this ref (a reply to a chat message names the message). */
export async function alertIdByRef(ctx: PlatformContext, ref: string): Promise<number | null> {
  const row: { alert_id: number } | undefined = await ctx.db("alert_history").where({ ref }).first("alert_id");
  return row?.alert_id ?? null;
}

export interface NewAlert {
  alert_type: string;
  level: string;
  description: string;
  room_name?: string | null;
  sensor_id?: string | null;
  rule_id?: number | null;
  execution_id?: number | null;
  image_url?: string | null;
  next_escalation_at?: string | null;
  /** Raising again with the same key returns the alert already raised (see migration 011). */
  idempotency_key?: string | null;
}

/** The alert a step raised, by the step's idempotency key (`run:step:activation`). */
export async function alertByKey(ctx: PlatformContext, key: string | null | undefined): Promise<Alert | undefined> {
  if (!key) return undefined;
  const row: { id: number } | undefined = await ctx.db("alerts").where({ idempotency_key: key }).first("id");
  return row ? getAlert(ctx, row.id) : undefined;
}

export async function createAlert(ctx: PlatformContext, a: NewAlert): Promise<Alert> {
  const existing = await alertByKey(ctx, a.idempotency_key);
  if (existing) return existing;
  let raced: Alert | undefined;
  const [row] = await ctx
    .db("alerts")
    .insert({
      timestamp: isoNow(ctx.clock),
      alert_type: a.alert_type,
      level: a.level,
      description: a.description,
      room_name: a.room_name ?? null,
      sensor_id: a.sensor_id ?? null,
      rule_id: a.rule_id ?? null,
      execution_id: a.execution_id ?? null,
      image_url: a.image_url ?? null,
      next_escalation_at: a.next_escalation_at ?? null,
      idempotency_key: a.idempotency_key ?? null,
    })
    .returning("id")
    .catch(async (err: unknown) => {
      // Raised at the same moment by another attempt of the same step: that one stands.
      raced = await alertByKey(ctx, a.idempotency_key);
      if (raced) return [{ id: raced.id }];
      throw err;
    });
  if (raced) return raced;
  const id = typeof row === "object" ? row.id : row;
  ctx.bus.publish("alert.created", { alert_id: id, level: a.level });
  return getAlert(ctx, id);
}

export const alertActionSchema = z.object({ action: z.enum(["dismiss", "assist"]), note: z.string().max(2000).optional() }).strict();

export async function actOnAlert(ctx: PlatformContext, id: number, input: unknown, actor: string): Promise<Alert> {
  const body = parseInput(alertActionSchema, input);
  const alert = await getAlert(ctx, id);
  if (alert.resolved) {
    throw new ConflictError(`Alert ${id} is already resolved${alert.resolved_by ? ` by ${alert.resolved_by}` : ""} at ${alert.resolved_at}`);
  }
  const now = isoNow(ctx.clock);
  await ctx.db.transaction(async (trx) => {
    if (body.action === "dismiss") {
      await trx("alerts").where({ id }).update({ resolved: true, resolved_at: now, resolved_by: actor, next_escalation_at: null });
    } else {
      await trx("alerts").where({ id }).update({ assistance_needed: true, assisted_at: now });
    }
    await trx("alert_actions").insert({ alert_id: id, action: body.action, actor, note: body.note ?? null, created_at: now });
  });
  await recordAlertHistory(ctx, id, [
    { event: body.action === "dismiss" ? "resolved" : "acknowledged", target: actor, escalation: alert.escalation_count, detail: body.note ?? null },
  ]);
  ctx.bus.publish("alert.acknowledged", { alert_id: id, action: body.action, actor });
  return getAlert(ctx, id);
}

/** An alert as escalation reads it: its schedule and the notification it sends again. */
export interface EscalationRow {
  id: number;
  level: string;
  description: string;
  room_name: string | null;
  image_url: string | null;
  execution_id: number | null;
  resolved: unknown;
  assistance_needed: unknown;
  escalation_count: number;
  /** The last repetition whose send finished (below `escalation_count`: one was cut short). */
  escalation_sent: number;
  /** The instance that claimed the last repetition; null once it gave an unfinished claim back. */
  escalation_claimed_by: string | null;
  next_escalation_at: string | null;
  notification_json: string | null;
}

/** Open alerts of these levels that nobody has taken on (neither resolved nor assisted), oldest first. */
export async function unattendedAlerts(ctx: PlatformContext, levels: readonly string[]): Promise<EscalationRow[]> {
  return ctx
    .db<EscalationRow>("alerts")
    .where({ resolved: false, assistance_needed: false })
    .whereIn("level", [...levels])
    .orderBy("id", "asc")
    .limit(50);
}

/** Open alerts with a re-send scheduled (escalation re-arms them on start). */
export async function scheduledEscalations(ctx: PlatformContext): Promise<Array<{ id: number; next_escalation_at: string }>> {
  // Non-null by the where clause: the escalator arms every row without checking again.
  const rows: Array<{ id: number; next_escalation_at: string }> = await ctx
    .db("alerts")
    .where("resolved", false)
    .whereNotNull("next_escalation_at")
    .select("id", "next_escalation_at");
  return rows;
}

export async function escalationRow(ctx: PlatformContext, id: number): Promise<EscalationRow | undefined> {
  return ctx.db<EscalationRow>("alerts").where({ id }).first();
}

/** No more re-sends of this alert (it was acknowledged). */
export async function clearEscalation(ctx: PlatformContext, id: number): Promise<void> {
  await ctx.db("alerts").where({ id }).whereNotNull("next_escalation_at").update({ next_escalation_at: null });
}

/** Ends the schedule when it is still the one read (`scheduledAt`): the repetitions are used up. */
export async function endEscalation(ctx: PlatformContext, id: number, scheduledAt: string): Promise<void> {
  await ctx.db("alerts").where({ id, next_escalation_at: scheduledAt }).update({ next_escalation_at: null });
}

/**
 * Claims repetition `row.escalation_count + 1` of an open alert: one conditional UPDATE that
 * succeeds only while count and schedule are still those read and nobody acknowledged it (an
 * assist made through another instance since the read), so of two timers (or two processes)
 * exactly one wins. True when this caller won and may send.
 */
export async function claimEscalation(
  ctx: PlatformContext,
  row: Pick<EscalationRow, "id" | "escalation_count" | "next_escalation_at">,
  nextAt: string | null,
  claimant: string,
): Promise<boolean> {
  const claimed = await ctx
    .db("alerts")
    .where({ id: row.id, escalation_count: row.escalation_count, next_escalation_at: row.next_escalation_at, resolved: false, assistance_needed: false })
    .update({ escalation_count: row.escalation_count + 1, next_escalation_at: nextAt, escalation_claimed_by: claimant });
  return claimed === 1;
}

/**
 * Takes over unfinished repetition `n` from its claimant (`from`, null when given back): true
 * when it was still unfinished and still that claimant's, so only one taker sends it again.
 */
export async function takeOverEscalation(ctx: PlatformContext, id: number, n: number, from: string | null, to: string): Promise<boolean> {
  const taken = await ctx
    .db("alerts")
    .where({ id, escalation_count: n, escalation_claimed_by: from })
    .where("escalation_sent", "<", n)
    .update({ escalation_claimed_by: to });
  return taken === 1;
}

/** Gives back repetition `n`, claimed by `claimant` and cut short: the next escalator sends it. */
export async function releaseEscalation(ctx: PlatformContext, id: number, n: number, claimant: string): Promise<void> {
  await ctx
    .db("alerts")
    .where({ id, escalation_count: n, escalation_claimed_by: claimant })
    .where("escalation_sent", "<", n)
    .update({ escalation_claimed_by: null });
}

/**
 * Open alerts, nobody on them, whose last claimed repetition was never finished: the process
 * that claimed it stopped (kill -9, a lost lease) between the claim and the receipts.
 */
export async function unfinishedEscalations(ctx: PlatformContext): Promise<EscalationRow[]> {
  return ctx
    .db<EscalationRow>("alerts")
    .where({ resolved: false, assistance_needed: false })
    .where("escalation_count", ">", ctx.db.ref("escalation_sent"))
    .orderBy("id", "asc");
}

/** Repetition `n` of the alert was sent (its receipts recorded). */
export async function markEscalationSent(ctx: PlatformContext, id: number, n: number): Promise<void> {
  await ctx.db("alerts").where({ id }).where("escalation_sent", "<", n).update({ escalation_sent: n });
}

/** Keeps the notification an alert was raised with (JSON text), for its re-sends. */
export async function storeAlertNotification(ctx: PlatformContext, id: number, notificationJson: string): Promise<void> {
  await ctx.db("alerts").where({ id }).update({ notification_json: notificationJson });
}

/** The ids of a run's alerts that are not resolved. */
export async function openAlertIdsOfRun(ctx: PlatformContext, executionId: number): Promise<number[]> {
  const rows: Array<{ id: number }> = await ctx.db("alerts").where({ execution_id: executionId, resolved: false }).select("id");
  return rows.map((r) => r.id);
}
