import { accessSync, constants, readFileSync } from "node:fs";
import type { KafkaConfig } from "kafkajs";
import { z } from "zod";
import { booleanVariable } from "../config.ts";

/**
 * How the services reach a managed Kafka: TLS (optionally with a private CA) and SASL
 * authentication (SCRAM-SHA-512 or PLAIN). The services that use Kafka (meeting, webhook) add these
 * variables to their configuration schema and check the combination with `checkKafkaSecurity`, so
 * a bad combination stops the process at start, naming the variable.
 */
export const kafkaSecurityEnv = {
  /** Connect to the brokers over TLS (certificates verified against the system CAs or KAFKA_TLS_CA_FILE). */
  KAFKA_TLS: booleanVariable(false),
  /** PEM file of the CA(s) that signed the brokers' certificates, when not a public CA. */
  KAFKA_TLS_CA_FILE: z.string().min(1).optional(),
  /** SASL mechanism, `scram-sha-512` or `plain`; `plain` is refused without KAFKA_TLS when NODE_ENV=production. */
  KAFKA_SASL_MECHANISM: z.enum(["scram-sha-512", "plain"], { message: "must be scram-sha-512 or plain" }).optional(),
  /** SASL user name: required with a mechanism, refused without one. */
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  /** SASL password: required with a mechanism, refused without one. */
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
};

export interface KafkaSecuritySettings {
  KAFKA_TLS: boolean;
  KAFKA_TLS_CA_FILE?: string | undefined;
  KAFKA_SASL_MECHANISM?: "scram-sha-512" | "plain" | undefined;
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
}

/** The combination rules, as issues on the variable at fault (for a schema's superRefine). */
export function checkKafkaSecurity(env: KafkaSecuritySettings & { NODE_ENV?: string }, context: z.RefinementCtx): void {
  const issue = (variable: string, message: string) => context.addIssue({ code: "custom", path: [variable], message });
  const credentials = env.KAFKA_SASL_USERNAME !== undefined || env.KAFKA_SASL_PASSWORD !== undefined;
  if (env.KAFKA_SASL_MECHANISM) {
    if (env.KAFKA_SASL_USERNAME === undefined) issue("KAFKA_SASL_USERNAME", `is required with KAFKA_SASL_MECHANISM=${env.KAFKA_SASL_MECHANISM}`);
    if (env.KAFKA_SASL_PASSWORD === undefined) issue("KAFKA_SASL_PASSWORD", `is required with KAFKA_SASL_MECHANISM=${env.KAFKA_SASL_MECHANISM}`);
    // PLAIN sends the password as is: only inside TLS outside development.
    if (env.KAFKA_SASL_MECHANISM === "plain" && !env.KAFKA_TLS && env.NODE_ENV === "production") {
      issue("KAFKA_SASL_MECHANISM", "plain sends the password in clear text: set KAFKA_TLS=true (or use scram-sha-512)");
    }
  } else if (credentials) {
    issue("KAFKA_SASL_MECHANISM", "is required when KAFKA_SASL_USERNAME or KAFKA_SASL_PASSWORD is set (scram-sha-512 or plain)");
  }
  if (env.KAFKA_TLS_CA_FILE !== undefined) {
    if (!env.KAFKA_TLS) issue("KAFKA_TLS_CA_FILE", "needs KAFKA_TLS=true");
    try {
      accessSync(env.KAFKA_TLS_CA_FILE, constants.R_OK);
    } catch {
      issue("KAFKA_TLS_CA_FILE", `cannot read ${env.KAFKA_TLS_CA_FILE}`);
    }
  }
}

/** The kafkajs connection options for checked settings. */
export function kafkaSecurityOptions(env: KafkaSecuritySettings): Pick<KafkaConfig, "ssl" | "sasl"> {
  const options: Pick<KafkaConfig, "ssl" | "sasl"> = {};
  if (env.KAFKA_TLS) options.ssl = env.KAFKA_TLS_CA_FILE ? { ca: [readFileSync(env.KAFKA_TLS_CA_FILE, "utf8")], rejectUnauthorized: true } : true;
  const credentials = env.KAFKA_SASL_USERNAME !== undefined &&
    env.KAFKA_SASL_PASSWORD !== undefined && { username: env.KAFKA_SASL_USERNAME, password: env.KAFKA_SASL_PASSWORD };
  if (credentials && env.KAFKA_SASL_MECHANISM === "scram-sha-512") options.sasl = { mechanism: "scram-sha-512", ...credentials };
  if (credentials && env.KAFKA_SASL_MECHANISM === "plain") options.sasl = { mechanism: "plain", ...credentials };
  return options;
}
