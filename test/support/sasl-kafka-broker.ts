// A Kafka broker of a test's own that only speaks SASL (SCRAM-SHA-512 and PLAIN) over plaintext:
// the same jars and the same KRaft single-node layout as the shared broker of scripts/infra, but
// in a temporary directory, on free ports, started and stopped by the test. The shared broker on
// 9092 is never touched.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePorts } from "./infra.ts";
import { waitUntilReady } from "./process-readiness.ts";

const kafkaLibs = path.join(process.env.SVC_CACHE ?? path.join(os.homedir(), ".cache", "svc"), "kafka", "libs");
// As scripts/infra's: a small heap, serial GC and C1 only start fastest on a shared 2-core machine.
const jvmOptions = ["-Xmx384m", "-Xms128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true"];

export interface SaslUser {
  username: string;
  password: string;
}

export interface SaslKafkaBroker {
  brokers: string;
  /** Milliseconds from spawning the JVM until the SASL listener accepted connections. */
  startMs: number;
  /** Milliseconds the storage format (with the SCRAM users) took. */
  formatMs: number;
  logs(): string;
  stop(): Promise<void>;
  /** Kills the broker without a goodbye (SIGKILL), as when its host fails. */
  kill(): void;
}

/**
 * Formats a KRaft log directory with `users` as SCRAM-SHA-512 credentials (StorageTool --add-scram,
 * so they exist before the first connection) and the same users as PLAIN users, then starts the
 * broker with one SASL_PLAINTEXT listener and waits until it accepts connections.
 */
export async function startSaslKafkaBroker(users: SaslUser[]): Promise<SaslKafkaBroker> {
  if (!existsSync(kafkaLibs)) throw new Error(`no Kafka jars in ${kafkaLibs}: run scripts/infra up once`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-sasl-kafka-"));
  const [port, controllerPort] = (await freePorts(2)) as [number, number];
  // The broker authenticates to itself (inter-broker listener) as a user of its own.
  const broker: SaslUser = { username: "broker", password: `broker-${path.basename(dir)}` };
  const everyone = [broker, ...users];
  const jaasValue = (value: string) => `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  const properties = [
    "process.roles=broker,controller",
    "node.id=1",
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=SASL_PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=SASL_PLAINTEXT://127.0.0.1:${port}`,
    "controller.listener.names=CONTROLLER",
    "inter.broker.listener.name=SASL_PLAINTEXT",
    "listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
    "sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN",
    "sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512",
    `listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=${jaasValue(broker.username)} password=${jaasValue(broker.password)};`,
    // PLAIN users are the user_<name>="<password>" options of the broker's own login module.
    `listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=${jaasValue(broker.username)} password=${jaasValue(broker.password)} ${everyone
      .map((user) => `user_${user.username}=${jaasValue(user.password)}`)
      .join(" ")};`,
    `log.dirs=${path.join(dir, "data")}`,
    "num.partitions=1",
    "offsets.topic.replication.factor=1",
    "offsets.topic.num.partitions=4",
    "transaction.state.log.replication.factor=1",
    "transaction.state.log.min.isr=1",
    "share.coordinator.state.topic.replication.factor=1",
    "share.coordinator.state.topic.min.isr=1",
    "min.insync.replicas=1",
    "default.replication.factor=1",
    "group.initial.rebalance.delay.ms=0",
  ];
  const propertiesFile = path.join(dir, "server.properties");
  writeFileSync(propertiesFile, `${properties.join("\n")}\n`);
  writeFileSync(
    path.join(dir, "log4j2.properties"),
    "rootLogger.level = WARN\nrootLogger.appenderRef.stdout.ref = STDOUT\nappender.stdout.type = Console\nappender.stdout.name = STDOUT\nappender.stdout.layout.type = PatternLayout\nappender.stdout.layout.pattern = [%d] %p %m (%c)%n\n",
  );
  const java = (main: string, args: string[]) => ["-Dlog4j2.configurationFile=" + path.join(dir, "log4j2.properties"), "-cp", `${kafkaLibs}/*`, main, ...args];

  const formatStarted = performance.now();
  const scram = everyone.flatMap((user) => ["--add-scram", `SCRAM-SHA-512=[name=${user.username},password=${user.password}]`]);
  const format = spawnSync(
    "java",
    [...jvmOptions, ...java("kafka.tools.StorageTool", ["format", `--cluster-id=${randomBytes(16).toString("base64url")}`, "-c", propertiesFile, ...scram])],
    {
      encoding: "utf8",
      timeout: 120_000,
    },
  );
  const formatMs = Math.round(performance.now() - formatStarted);
  if (format.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`kafka storage format failed (${format.status}): ${format.stderr}${format.stdout}`);
  }

  const started = performance.now();
  const child: ChildProcess = spawn("java", [...jvmOptions, ...java("kafka.Kafka", [propertiesFile])], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const killed = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(killed);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(child, () => accepts(port), { name: "the SASL test broker", timeoutMs: 120_000, output: () => output });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    brokers: `127.0.0.1:${port}`,
    startMs: Math.round(performance.now() - started),
    formatMs,
    logs: () => output,
    stop,
    kill: () => void child.kill("SIGKILL"),
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
