/**
 * The address the household's devices reach careflow at (issue 42): `app.public_url`, else the
 * host's first network IPv4 address and the port, else localhost, said as such at every start.
 */
import assert from "node:assert/strict";
import { firstNetworkAddress, isLoopbackHost, reachableAddress, type NetworkInterfaces } from "../../../../runtime/platform/http/household-address";
import { captureLog } from "../../../support/capture-log";
import { startTestApp } from "../../../support/test-app";

const nic = (address: string, family: "IPv4" | "IPv6", internal = false) => ({ address, family, internal, netmask: "", mac: "", cidr: null }) as never;

describe("the household's address", () => {
  it("is the first non-loopback IPv4 address in the system's order: not loopback, IPv6 or link-local", () => {
    const nets: NetworkInterfaces = {
      lo: [nic("127.0.0.1", "IPv4", true), nic("::1", "IPv6", true)],
      eth0: [nic("fe80::1", "IPv6"), nic("169.254.10.1", "IPv4")],
      wlan0: [nic("192.168.1.20", "IPv4"), nic("192.168.1.21", "IPv4")],
      eth1: [nic("10.0.0.5", "IPv4")],
    };
    assert.equal(firstNetworkAddress(nets), "192.168.1.20");
    assert.deepEqual(reachableAddress(undefined, 8080, nets), { base: "http://192.168.1.20:8080", source: "network" });
    assert.deepEqual(reachableAddress(undefined, 8080, { lo: nets.lo, eth0: nets.eth0 }), { base: "http://localhost:8080", source: "loopback" });
    assert.deepEqual(reachableAddress("http://careflow.local:8080/", 9999, nets), { base: "http://careflow.local:8080", source: "public_url" });
  });

  it("knows the addresses only this machine reaches", () => {
    for (const h of ["localhost", "localhost:8080", "127.0.0.1:8080", "127.1.2.3", "[::1]:8080", "app.localhost"]) assert.equal(isLoopbackHost(h), true, h);
    for (const h of ["192.168.1.20:8080", "careflow.local", "[fe80::1]:80", "localhost.example.com"]) assert.equal(isLoopbackHost(h), false, h);
  });

  it("is said at every start: the network address used, or localhost with a warning to set app.public_url", async () => {
    const onNet = captureLog();
    const a = await startTestApp({ log: onNet.log, networkInterfaces: () => ({ eth0: [nic("192.168.1.20", "IPv4")] }) });
    const alone = captureLog();
    const b = await startTestApp({ log: alone.log, networkInterfaces: () => ({ lo: [nic("127.0.0.1", "IPv4", true)] }) });
    try {
      const said = onNet.lines.find((l) => l.source === "network");
      assert.equal(said?.address, `http://192.168.1.20:${new URL(a.baseUrl).port}`);
      assert.match(String(said?.msg), /app\.public_url is not set: the tablet's set-up link and the speakers' audio use http:\/\/192\.168\.1\.20:\d+/);
      const warned = alone.lines.find((l) => l.source === "loopback");
      assert.equal(warned?.level, 40, "a warning");
      assert.match(String(warned?.msg), /no network address: .*http:\/\/localhost:\d+, which only this machine opens; set app\.public_url/);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
