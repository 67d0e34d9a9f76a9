// The parts every authenticated REST request must run in the benchmarked (the production)
// configuration, taken straight from their libraries and none of our code: helmet's headers, a
// JSON access line per request (pino-http to stdout), the JSON body parser, and two Redis round
// trips, a GET (the credential cache) and a rate-limiter-flexible bucket. The ceilings that stand
// for POST /auth (ceiling-server.ts auth-parts) and for a request through one service
// (hop-ceiling.ts) are built from these.
import express, { type Express } from "express";
import helmet from "helmet";
import { Redis } from "ioredis";
import { pino } from "pino";
import { pinoHttp } from "pino-http";
import { RateLimiterRedis } from "rate-limiter-flexible";

/**
 * An Express app with the middleware in place, and `authenticate`, the two Redis round trips of a
 * request's credential: it answers the cached verification, which a handler may send as its body.
 */
export async function authPartsApp(redisUrl: string): Promise<{ app: Express; authenticate: (res: express.Response) => Promise<string> }> {
  // The gateway's Redis client options (services/platform/src/redis.ts).
  const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000, enableAutoPipelining: true });
  await new Promise((resolve) => redis.once("ready", resolve));
  const cacheKey = `bench-ceiling:${process.pid}:credential`;
  const verification = JSON.stringify({ valid: true, userId: "00000000-0000-0000-0000-000000000000", orgId: "00000000-0000-0000-0000-000000000000" });
  // Expires on its own, like the rate buckets: the shared Redis keeps nothing of a bench run.
  await redis.set(cacheKey, verification, "PX", 3_600_000);
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
  const authenticate = async (res: express.Response) => {
    const cached = await redis.get(cacheKey);
    const state = await limiter.consume("credential");
    res.set("RateLimit-Remaining", String(state.remainingPoints));
    return cached!;
  };
  return { app, authenticate };
}
