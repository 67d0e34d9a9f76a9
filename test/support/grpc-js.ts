import * as grpc from "@grpc/grpc-js";
import { fromBinary, toBinary, create, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";

/**
 * A plain @grpc/grpc-js client (not Connect) for any generated method, so tests prove that our
 * Connect servers speak the gRPC wire protocol that other stacks' clients use.
 */
export function grpcJsClient(url: string) {
  const client = new grpc.Client(new URL(url).host, grpc.credentials.createInsecure());
  const serialize =
    <D extends DescMessage>(schema: D) =>
    (message: MessageShape<D>) =>
      Buffer.from(toBinary(schema, message));
  const deserialize =
    <D extends DescMessage>(schema: D) =>
    (bytes: Buffer) =>
      fromBinary(schema, bytes);
  return {
    unary<I extends DescMessage, O extends DescMessage>(
      path: string,
      input: I,
      output: O,
      request: MessageInitShape<I>,
      metadata: Record<string, string> = {},
    ): Promise<MessageShape<O>> {
      const md = new grpc.Metadata();
      for (const [key, value] of Object.entries(metadata)) md.set(key, value);
      return new Promise((resolve, reject) => {
        client.makeUnaryRequest(path, serialize(input), deserialize(output), create(input, request), md, (error, response) =>
          error ? reject(error) : resolve(response!),
        );
      });
    },
    bidi<I extends DescMessage, O extends DescMessage>(path: string, input: I, output: O) {
      return client.makeBidiStreamRequest(path, serialize(input), deserialize(output));
    },
    close: () => client.close(),
  };
}
