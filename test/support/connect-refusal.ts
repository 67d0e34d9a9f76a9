import { ConnectError } from "@connectrpc/connect";

/** Call options that send `token` as a Bearer credential, as a direct gRPC/Connect caller does. */
export const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

/** The ConnectError a call was refused with; fails when the call succeeds. */
export async function refusal(call: Promise<unknown>): Promise<ConnectError> {
  const error = await call.then(
    () => undefined,
    (failure: unknown) => ConnectError.from(failure),
  );
  if (!error) throw new Error("expected the call to be refused");
  return error;
}
