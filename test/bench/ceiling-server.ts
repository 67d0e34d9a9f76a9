// The ceilings the gateway is compared with: the same constant JSON body from a bare Node `http`
// handler and from a bare Express handler, each in its own process like the gateway.
import http from "node:http";
import express from "express";

const [kind, port] = [process.argv[2], Number(process.argv[3])];
const body = JSON.stringify({ valid: true, userId: "00000000-0000-0000-0000-000000000000", orgId: "00000000-0000-0000-0000-000000000000" });

if (kind === "node") {
  http
    .createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    })
    .listen(port, "127.0.0.1");
} else {
  const app = express();
  app.post("/", (_req, res) => {
    res.type("application/json").send(body);
  });
  app.get("/", (_req, res) => {
    res.type("application/json").send(body);
  });
  app.listen(port, "127.0.0.1");
}
