/**
 * The lease rows' fencing, one guard at a time: a renewal extends a lease only for its holder,
 * with the token it was granted, while it has not expired; a take-over only of a free or expired
 * lease. Each test leaves every guard but one satisfied, so removing that guard from the SQL
 * fails exactly that test. The stalled holder keeps its instance id: only the token tells its
 * old grant from its new one. Then the store's other statements: one renewal for several leases,
 * a lease given back, and the instance list (GET /api/v1/admin/cluster).
 */
import assert from "node:assert/strict";
import {
  forgetSilentInstances,
  heartbeat,
  listInstances,
  listLeases,
  release,
  removeInstance,
  renew,
  tryAcquire,
} from "../../../../runtime/platform/cluster/cluster.store";
import type { Store } from "../../../../runtime/platform/db/store";
import { sharedPg, type SharedPg } from "../../../support/pg-cluster";

const LEASE = "cron";
const MS = 3000;

describe("cluster: lease fencing, one guard at a time", function () {
  this.timeout(20_000);
  let pg: SharedPg;
  let store: Store;

  before(async function () {
    pg = await sharedPg(this);
    store = await pg.open();
  });
  after(() => pg?.drop());
  beforeEach(() => store.db("cluster_leases").delete());

  const expiresOf = async (): Promise<number> => (await listLeases(store.db)).find((l) => l.name === LEASE)!.expires_at;

  it("a stalled holder with its old token renews nothing, though it kept its instance id and the lease is live (token guard)", async () => {
    const old = await tryAcquire(store.db, LEASE, "alpha", 1_000, 1_000 + MS);
    assert.equal(old, 1);
    // alpha stalls past expiry; on waking, its acquiring loop takes the lease again (token 2) ...
    const fresh = await tryAcquire(store.db, LEASE, "alpha", 5_000, 5_000 + MS);
    assert.equal(fresh, 2);
    // ... while the stalled loop still renews with token 1: same holder, a live lease.
    const renewed = await renew(store.db, "alpha", [{ name: LEASE, token: old! }], 6_000, 6_000 + MS);
    assert.deepEqual([...renewed], [], "a grant that was replaced is not renewed");
    assert.equal(await expiresOf(), 5_000 + MS, "the live grant's expiry is untouched");
    assert.deepEqual([...(await renew(store.db, "alpha", [{ name: LEASE, token: fresh! }], 6_000, 6_000 + MS))], [LEASE]);
  });

  it("another instance holding the same token number renews nothing (holder guard)", async () => {
    const token = await tryAcquire(store.db, LEASE, "alpha", 1_000, 1_000 + MS);
    const renewed = await renew(store.db, "beta", [{ name: LEASE, token: token! }], 2_000, 2_000 + MS);
    assert.deepEqual([...renewed], []);
    assert.equal(await expiresOf(), 1_000 + MS);
  });

  it("a holder whose lease has expired renews nothing, even with its own token: it must take it again (expiry guard)", async () => {
    const token = await tryAcquire(store.db, LEASE, "alpha", 1_000, 1_000 + MS);
    const renewed = await renew(store.db, "alpha", [{ name: LEASE, token: token! }], 1_000 + MS, 2_000 + MS);
    assert.deepEqual([...renewed], []);
    assert.equal(await expiresOf(), 1_000 + MS);
  });

  it("another instance takes a live lease only once it has expired, with a larger token (take-over guard)", async () => {
    assert.equal(await tryAcquire(store.db, LEASE, "alpha", 1_000, 1_000 + MS), 1);
    assert.equal(await tryAcquire(store.db, LEASE, "beta", 1_000 + MS - 1, 1_000 + 2 * MS), null, "not while alpha's lease is live");
    assert.equal(await tryAcquire(store.db, LEASE, "beta", 1_000 + MS, 1_000 + 2 * MS), 2, "at its expiry");
    const [row] = await listLeases(store.db);
    assert.equal(row.holder, "beta");
    // The stalled alpha wakes: its token 1 renews nothing, and it cannot take beta's live lease.
    assert.deepEqual([...(await renew(store.db, "alpha", [{ name: LEASE, token: 1 }], 1_500 + MS, 1_500 + 2 * MS))], []);
    assert.equal(await tryAcquire(store.db, LEASE, "alpha", 1_500 + MS, 1_500 + 2 * MS), null);
  });

  it("an instance holding two leases renews both in one statement", async () => {
    const cron = await tryAcquire(store.db, "cron", "alpha", 1_000, 1_000 + MS);
    const reports = await tryAcquire(store.db, "reports", "alpha", 1_000, 1_000 + MS);
    const renewed = await renew(
      store.db,
      "alpha",
      [
        { name: "cron", token: cron! },
        { name: "reports", token: reports! },
      ],
      2_000,
      2_000 + MS,
    );
    assert.deepEqual([...renewed].sort(), ["cron", "reports"]);
    assert.deepEqual(
      (await listLeases(store.db)).map((l) => [l.name, l.expires_at]),
      [
        ["cron", 2_000 + MS],
        ["reports", 2_000 + MS],
      ],
    );
  });

  it("giving a lease back frees that grant only: a replaced grant frees nothing, another lease stays live (release guard)", async () => {
    const old = await tryAcquire(store.db, LEASE, "alpha", 1_000, 1_000 + MS);
    const fresh = await tryAcquire(store.db, LEASE, "alpha", 5_000, 5_000 + MS);
    await tryAcquire(store.db, "reports", "beta", 5_000, 5_000 + MS);
    await release(store.db, LEASE, "alpha", old!);
    assert.equal(await tryAcquire(store.db, LEASE, "beta", 5_500, 5_500 + MS), null, "alpha's live grant was not given back by its old token");
    await release(store.db, LEASE, "alpha", fresh!);
    assert.equal(await tryAcquire(store.db, LEASE, "beta", 5_500, 5_500 + MS), 3, "given back: beta takes it at once, with a larger token");
    assert.equal(await tryAcquire(store.db, "reports", "gamma", 5_500, 5_500 + MS), null, "beta's other lease is still live");
  });

  it("lists the instances by id; one that stops leaves the list, one silent past its expiry is forgotten", async () => {
    await store.db("cluster_instances").delete();
    const row = (id: string, expires: number) => ({ instance_id: id, host: "box", pid: 7, started_at: 1_000, heartbeat_at: 2_000, expires_at: expires });
    for (const r of [row("c", 9_000), row("b", 3_000), row("a", 9_000)]) await heartbeat(store.db, r);
    await heartbeat(store.db, { ...row("a", 12_000), heartbeat_at: 8_000 });
    assert.deepEqual(await listInstances(store.db), [{ ...row("a", 12_000), heartbeat_at: 8_000 }, row("b", 3_000), row("c", 9_000)]);
    await removeInstance(store.db, "c");
    assert.equal(await forgetSilentInstances(store.db, 5_000), 1);
    assert.deepEqual(
      (await listInstances(store.db)).map((i) => i.instance_id),
      ["a"],
    );
  });
});
