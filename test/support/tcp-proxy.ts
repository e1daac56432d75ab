/**
 * A TCP relay in front of a server (the machine's NATS broker), cut and restored at will: what
 * an instance meets when its broker goes away and comes back, without touching the broker
 * other tests share.
 */
import net from "node:net";

export interface TcpProxy {
  port: number;
  url: string;
  /** Drops every connection and stops listening. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function tcpProxy(target: { host: string; port: number }, scheme = "nats"): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(target);
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.once("close", () => sockets.delete(sock));
          sock.on("error", () => undefined);
        }
        client.pipe(upstream).pipe(client);
        client.once("close", () => upstream.destroy());
        upstream.once("close", () => client.destroy());
      });
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const cut = async () => {
    const s = server;
    server = null;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  await listen();
  return {
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    cut,
    restore: listen,
    close: cut,
  };
}
