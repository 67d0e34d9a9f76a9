// The ceilings the gateway is compared with: the same constant JSON body from a bare Node `http`
// handler and from a bare Express handler, each in its own process like the gateway. And
// `auth-parts`: Express with the parts that POST /api/v1/auth must run in the benchmarked (the
// production) configuration, and nothing else (auth-parts.ts).
//
//   ceiling-server.ts node|express <port>
//   REDIS_URL=… ceiling-server.ts auth-parts <port>
import http from "node:http";
import express from "express";
import { authPartsApp } from "./auth-parts.ts";

const [kind, port] = [process.argv[2], Number(process.argv[3])];
const body = JSON.stringify({ valid: true, userId: "00000000-0000-0000-0000-000000000000", orgId: "00000000-0000-0000-0000-000000000000" });

if (kind === "node") {
  http
    .createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    })
    .listen(port, "127.0.0.1");
} else if (kind === "express") {
  const app = express();
  app.post("/", (_req, res) => {
    res.type("application/json").send(body);
  });
  app.get("/", (_req, res) => {
    res.type("application/json").send(body);
  });
  app.listen(port, "127.0.0.1");
} else if (kind === "auth-parts") {
  const { app, authenticate } = await authPartsApp(process.env.REDIS_URL!);
  app.post("/", async (_req, res) => {
    res.type("application/json").send(await authenticate(res));
  });
  app.listen(port, "127.0.0.1");
} else {
  throw new Error(`unknown ceiling ${kind}`);
}
