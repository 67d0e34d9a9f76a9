// The ceilings the gateway is compared with: the same constant JSON body from a bare Node `http`
// handler and from a bare Express handler, each in its own process like the gateway. And
// `auth-parts`: Express with the parts that POST /api/v1/auth must run in the benchmarked (the
// production) configuration, used straight from their libraries and none of our code: helmet's
// headers, a JSON access line per request (pino-http to stdout), the JSON body parser, and two
// Redis round trips, a GET (the credential cache) and a rate-limiter-flexible bucket.
//
//   ceiling-server.ts node|express <port>
//   REDIS_URL=… ceiling-server.ts auth-parts <port>
import http from "node:http";
import express from "express";
import helmet from "helmet";
import { Redis } from "ioredis";
import { pino } from "pino";
import { pinoHttp } from "pino-http";
import { RateLimiterRedis } from "rate-limiter-flexible";

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
  // The gateway's Redis client options (services/platform/src/redis.ts).
  const redis = new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000, enableAutoPipelining: true });
  await new Promise((resolve) => redis.once("ready", resolve));
  const cacheKey = `bench-ceiling:${process.pid}:credential`;
  // Expires on its own, like the rate buckets: the shared Redis keeps nothing of a bench run.
  await redis.set(cacheKey, body, "PX", 3_600_000);
  const limiter = new RateLimiterRedis({ storeClient: redis, points: 1_000_000, duration: 1, keyPrefix: `bench-ceiling:${process.pid}:rate` });
  const app = express();
  app.use(
    pinoHttp({
      logger: pino(),
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use(helmet());
  app.use(express.json({ limit: "100kb" }));
  app.post("/", async (_req, res) => {
    const cached = await redis.get(cacheKey);
    const state = await limiter.consume("credential");
    res.set("RateLimit-Remaining", String(state.remainingPoints));
    res.type("application/json").send(cached);
  });
  app.listen(port, "127.0.0.1");
} else {
  throw new Error(`unknown ceiling ${kind}`);
}
