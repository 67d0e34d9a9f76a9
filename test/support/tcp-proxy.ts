// A TCP proxy in front of a real dependency (Postgres, Redis), so that a test can make the
// dependency vanish for the processes behind it, as a crashed database host does: every open
// connection is cut and no new one is accepted. The dependency itself, shared by other tests, stays.
import net from "node:net";

export interface TcpProxy {
  port: number;
  /** Cuts every connection and stops listening. */
  vanish(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    vanish: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.resetAndDestroy();
      }),
  };
}
