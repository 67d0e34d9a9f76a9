// The ceilings of a request that makes one internal hop (issue #18: where a target is out of reach
// inside the architecture, measure why): the bare Express ceiling plus one call to another process
// over HTTP/2, once with bare `node:http2` on both sides and once with Connect exactly as our
// processes call each other. Each role runs in its own process, like the gateway and a service.
//
//   DATABASE_URL=… hop-ceiling.ts backend <http2Port> <connectPort> <grpcJsPort> <internalPort>
//   REDIS_URL=… hop-ceiling.ts front <port> <http2Port> <connectPort> <grpcJsPort> <internalPort>
//
// For the two bare hops the backend answers the same protobuf bytes, so they differ only by the
// stack that carries them, and it does no work of its own (no database, no authentication).
// Two more hops carry the same call over gRPC with @grpc/grpc-js as the caller: to our Connect
// server (startServer, which speaks gRPC too), and to a bare @grpc/grpc-js server: the choice of
// transport per pair of processes, measured (docs/decisions/0018). The last hop is the one the
// gateway makes to meeting and webhook: our grpc-js transport (internalTransport with a grpc://
// URL) to startServer's grpc-js port, the Connect-ES bridge and every interceptor included.
//
// `GET /connect-parts` stands for a read through one service, GET /webhook's shape: the parts of
// an authenticated request (auth-parts.ts), the gateway's hop (grpc-js), and behind it one Postgres round trip
// reading 20 rows. It leaves out what such a route does with the rows (a message of 20 items
// encoded, decoded and written as JSON): it bounds from above what GET /webhook could reach.
// `GET /connect-parts/items/<n>` does that too, with the libraries alone: n rows read, answered as
// n Subscription messages, written as JSON; at 1 and 100 items it bounds how a page's cost may grow
// with its length.
import http2 from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import express from "express";
import { createLogger } from "@svc/platform";
import { createPool } from "@svc/platform/db";
import { internalTransport, startServer } from "@svc/platform/grpc";
import {
  ListEventTypesRequestSchema,
  ListEventTypesResponseSchema,
  ListSubscriptionsResponseSchema,
  WebhookService,
} from "@svc/proto/svc/webhook/v1/webhook_pb";
import { authPartsApp } from "./auth-parts.ts";

const [role, ...ports] = [process.argv[2], ...process.argv.slice(3).map(Number)];

// ListEventTypes: an empty request (as small as any of our services take), and a response that
// carries a few bytes, so both hops move a real message the receiver has to read.
const response = create(ListEventTypesResponseSchema, { eventTypes: [{ type: "meeting.ended", description: "A meeting ended." }] });
const responseBytes = toBinary(ListEventTypesResponseSchema, response);
const LIST_EVENT_TYPES = "/svc.webhook.v1.WebhookService/ListEventTypes";
// protobuf-es messages on the grpc-js wire, both ways.
const encodeRequest = (message: unknown) => Buffer.from(toBinary(ListEventTypesRequestSchema, message as never));
const decodeRequest = (bytes: Buffer) => fromBinary(ListEventTypesRequestSchema, bytes);
const encodeResponse = (message: unknown) => Buffer.from(toBinary(ListEventTypesResponseSchema, message as never));
const decodeResponse = (bytes: Buffer) => fromBinary(ListEventTypesResponseSchema, bytes);

if (role === "backend") {
  const [http2Port, connectPort, grpcJsPort, internalPort] = ports as [number, number, number, number];
  const grpcServer = new grpc.Server();
  grpcServer.addService(
    {
      listEventTypes: {
        path: LIST_EVENT_TYPES,
        requestStream: false,
        responseStream: false,
        requestSerialize: encodeRequest,
        requestDeserialize: decodeRequest,
        responseSerialize: encodeResponse,
        responseDeserialize: decodeResponse,
      },
    },
    { listEventTypes: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, response) },
  );
  grpcServer.bindAsync(`127.0.0.1:${grpcJsPort}`, grpc.ServerCredentials.createInsecure(), (error) => {
    if (error) throw error;
  });
  http2
    .createServer()
    .on("stream", (stream, headers) => {
      // Answered once the request is read, as a Connect server does (its body here is empty).
      stream.on("end", () => {
        if (headers[":method"] !== "POST") stream.respond({ ":status": 405 }, { endStream: true });
        else {
          stream.respond({ ":status": 200, "content-type": "application/proto" });
          stream.end(responseBytes);
        }
      });
      stream.resume();
    })
    .listen(http2Port, "127.0.0.1");
  const logger = createLogger("hop-ceiling");
  // The services' pool (prepared statements) and the webhook service's size; n rows of a
  // subscription's column types, generated rather than read from an index: one round trip either way.
  const pool = createPool({ databaseUrl: process.env.DATABASE_URL!, schema: "public", logger, max: 10 });
  const generatedRows = `SELECT gen_random_uuid() AS id, 'https://example.com/hook/' || g AS url, ARRAY['meeting.ended'] AS events,
      now() + g * interval '1 millisecond' AS created_at, NULL::timestamptz AS disabled_at, '' AS description
    FROM generate_series(1, $1::int) g`;
  const emptyList = create(ListSubscriptionsResponseSchema, {});
  type Row = { id: string; url: string; events: string[]; created_at: Date; description: string };
  // startServer itself, not a copy of it: the interceptors, limits and protocols every service
  // serves with (metrics off and the log at info, as in the bench's stack).
  await startServer({
    name: "hop-ceiling",
    host: "127.0.0.1",
    port: connectPort,
    internalPort,
    logger,
    services: [WebhookService],
    routes: (router) =>
      router.service(WebhookService, {
        listEventTypes: () => response,
        // No page size: 20 rows read, none answered; a page size: that many rows, answered.
        listSubscriptions: async ({ pageSize }) => {
          const { rows: read } = await pool.query<Row>(generatedRows, [pageSize || 20]);
          if (!pageSize) return emptyList;
          return create(ListSubscriptionsResponseSchema, {
            subscriptions: read.map((row) => ({
              webhookId: row.id,
              url: row.url,
              events: row.events,
              createdAt: timestampFromDate(row.created_at),
              description: row.description,
            })),
          });
        },
      }),
    isServing: async () => true,
  });
} else {
  const [port, http2Port, connectPort, grpcJsPort, internalPort] = ports as [number, number, number, number, number];
  const body = JSON.stringify({ valid: true, userId: "00000000-0000-0000-0000-000000000000", orgId: "00000000-0000-0000-0000-000000000000" });

  // One session shared by all requests, as the Connect transport keeps one; opened again only if
  // the backend closes it.
  let session: http2.ClientHttp2Session | undefined;
  const bareSession = () => {
    if (session && !session.closed && !session.destroyed) return session;
    const opened = http2.connect(`http://127.0.0.1:${http2Port}`);
    // A session error also fails its streams, which is where it is counted.
    opened.on("error", () => undefined);
    opened.once("close", () => {
      if (session === opened) session = undefined;
    });
    return (session = opened);
  };
  const bareHop = () =>
    new Promise<Buffer>((resolve, reject) => {
      const stream = bareSession().request({
        ":method": "POST",
        ":path": "/svc.webhook.v1.WebhookService/ListEventTypes",
        "content-type": "application/proto",
      });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on("response", (headers) => (status = Number(headers[":status"])));
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => (status === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`bare http2 hop answered ${status}`))));
      stream.on("error", reject);
      stream.end();
    });

  // The gateway's own transports (gateway/src/clients.ts): Connect, as it calls identity, and
  // grpc-js, as it calls meeting and webhook; a deadline on each call as every gateway call has
  // (CALL_TIMEOUT_MS in gateway/src/routes), since each costs a timer and a header.
  const connectClient = createClient(WebhookService, internalTransport(`http://127.0.0.1:${connectPort}`));
  const connectHop = () => connectClient.listEventTypes({}, { timeoutMs: 10_000 });
  const webhook = createClient(WebhookService, internalTransport(`grpc://127.0.0.1:${internalPort}`));
  const internalHop = () => webhook.listEventTypes({}, { timeoutMs: 10_000 });

  // @grpc/grpc-js as the caller, with the same deadline, to our Connect server and to a grpc-js server.
  const grpcJsHop = (client: grpc.Client) => () =>
    new Promise<unknown>((resolve, reject) =>
      client.makeUnaryRequest(
        LIST_EVENT_TYPES,
        encodeRequest,
        decodeResponse,
        create(ListEventTypesRequestSchema),
        new grpc.Metadata(),
        { deadline: Date.now() + 10_000 },
        (error, answer) => (error ? reject(error) : resolve(answer)),
      ),
    );
  const grpcJsToConnect = grpcJsHop(new grpc.Client(`127.0.0.1:${connectPort}`, grpc.credentials.createInsecure()));
  const grpcJsToGrpcJs = grpcJsHop(new grpc.Client(`127.0.0.1:${grpcJsPort}`, grpc.credentials.createInsecure()));

  // Listen only once every hop answers, so that the bench's readiness check covers the backend too.
  for (let attempt = 0; ; attempt++) {
    try {
      await Promise.all([bareHop(), connectHop(), grpcJsToConnect(), grpcJsToGrpcJs(), internalHop(), webhook.listSubscriptions({})]);
      break;
    } catch (error) {
      if (attempt === 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const app = express();
  const parts = await authPartsApp(process.env.REDIS_URL!);
  parts.app.get("/", async (_req, res) => {
    await parts.authenticate(res);
    await webhook.listSubscriptions({}, { timeoutMs: 10_000 });
    res.type("application/json").send(body);
  });
  parts.app.get("/items/:count", async (req, res) => {
    await parts.authenticate(res);
    const { subscriptions } = await webhook.listSubscriptions({ pageSize: Number(req.params.count) }, { timeoutMs: 10_000 });
    res.json({
      webhooks: subscriptions.map((subscription) => ({
        webhookId: subscription.webhookId,
        url: subscription.url,
        events: subscription.events,
        createdAt: timestampDate(subscription.createdAt!).toISOString(),
        description: subscription.description,
      })),
    });
  });
  app.use("/connect-parts", parts.app);
  // One route per hop, each answering the same body once its call is back.
  const hops = {
    http2: bareHop,
    connect: connectHop,
    "grpc-js-to-connect": grpcJsToConnect,
    "grpc-js-to-grpc-js": grpcJsToGrpcJs,
    internal: internalHop,
  };
  for (const [route, hop] of Object.entries(hops)) {
    app.post(`/${route}`, async (_req, res) => {
      await hop();
      res.type("application/json").send(body);
    });
  }
  app.listen(port, "127.0.0.1");
}
