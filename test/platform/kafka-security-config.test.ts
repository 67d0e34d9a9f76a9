import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "@svc/platform";
import { kafkaSecurityOptions } from "@svc/platform/events";
import { configSchema as meetingConfig } from "../../services/meeting/src/config.ts";
import { configSchema as webhookConfig } from "../../services/webhook/src/config.ts";

// Kafka TLS and SASL come from KAFKA_* variables, checked by the schema of every service that
// uses Kafka (meeting produces meeting.events, webhook consumes it).
const base = { DATABASE_URL: "postgres://svc@127.0.0.1/svc", KAFKA_BROKERS: "kafka-1.example:9093,kafka-2.example:9093" };
const schemas = { meeting: meetingConfig, webhook: webhookConfig };

describe.each(Object.entries(schemas))("Kafka security settings of %s", (_service, schema) => {
  it("turns KAFKA_TLS and SCRAM-SHA-512 credentials into the kafkajs connection options", () => {
    const config = parseConfig(schema, {
      ...base,
      KAFKA_TLS: "true",
      KAFKA_SASL_MECHANISM: "scram-sha-512",
      KAFKA_SASL_USERNAME: "meeting",
      KAFKA_SASL_PASSWORD: "s3cret",
    });
    expect(kafkaSecurityOptions(config)).toEqual({ ssl: true, sasl: { mechanism: "scram-sha-512", username: "meeting", password: "s3cret" } });
  });

  it("reads a private CA for TLS from KAFKA_TLS_CA_FILE", () => {
    const caFile = path.join(mkdtempSync(path.join(tmpdir(), "kafka-ca-")), "ca.pem");
    writeFileSync(caFile, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    const config = parseConfig(schema, { ...base, KAFKA_TLS: "true", KAFKA_TLS_CA_FILE: caFile });
    expect(kafkaSecurityOptions(config)).toEqual({ ssl: { ca: ["-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"], rejectUnauthorized: true } });
  });

  it("connects in plain text without settings (the local broker)", () => {
    expect(kafkaSecurityOptions(parseConfig(schema, base))).toEqual({});
  });

  it.each([
    [{ KAFKA_SASL_MECHANISM: "scram-sha-512" }, /KAFKA_SASL_USERNAME: is required with KAFKA_SASL_MECHANISM=scram-sha-512; KAFKA_SASL_PASSWORD: is required/],
    [
      { KAFKA_SASL_USERNAME: "meeting", KAFKA_SASL_PASSWORD: "s3cret" },
      /KAFKA_SASL_MECHANISM: is required when KAFKA_SASL_USERNAME or KAFKA_SASL_PASSWORD is set/,
    ],
    [{ KAFKA_SASL_MECHANISM: "gssapi" }, /KAFKA_SASL_MECHANISM: must be scram-sha-512 or plain/],
    [{ KAFKA_TLS: "yes" }, /KAFKA_TLS: must be true or false/],
    [{ KAFKA_TLS: "true", KAFKA_TLS_CA_FILE: "/nonexistent/ca.pem" }, /KAFKA_TLS_CA_FILE: cannot read \/nonexistent\/ca.pem/],
    [{ KAFKA_TLS_CA_FILE: "/etc/hostname" }, /KAFKA_TLS_CA_FILE: needs KAFKA_TLS=true/],
    [
      { NODE_ENV: "production", KAFKA_SASL_MECHANISM: "plain", KAFKA_SASL_USERNAME: "meeting", KAFKA_SASL_PASSWORD: "s3cret" },
      /KAFKA_SASL_MECHANISM: plain sends the password in clear text: set KAFKA_TLS=true/,
    ],
  ])("refuses %j naming the variable", (settings, message) => {
    expect(() => parseConfig(schema, { ...base, ...settings })).toThrow(message);
  });
});
