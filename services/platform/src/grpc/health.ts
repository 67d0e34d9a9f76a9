import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import {
  Health,
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthCheckResponseSchema,
  HealthListResponseSchema,
} from "@svc/proto/health/v1/health_pb";

/**
 * grpc.health.v1 for one process. `isServing` is asked on every check, so readiness follows the
 * process's real dependencies (for example its database) instead of a flag set once at start.
 * The empty service name means "the whole server", as the protocol defines.
 */
export function registerHealth(router: ConnectRouter, serviceNames: string[], isServing: () => Promise<boolean>) {
  const known = new Set(["", ...serviceNames]);
  const statusOf = async (service: string) => {
    if (!known.has(service)) throw new ConnectError(`unknown service ${service}`, Code.NotFound);
    return (await isServing()) ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  };
  router.service(Health, {
    async check(request) {
      return create(HealthCheckResponseSchema, { status: await statusOf(request.service) });
    },
    async *watch(request, context) {
      let last: ServingStatus | undefined;
      while (!context.signal.aborted) {
        const status = await statusOf(request.service);
        if (status !== last) yield create(HealthCheckResponseSchema, { status });
        last = status;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    },
    async list() {
      const status = (await isServing()) ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
      const statuses: Record<string, { status: ServingStatus }> = {};
      for (const name of known) statuses[name] = { status };
      return create(HealthListResponseSchema, { statuses });
    },
  });
}
