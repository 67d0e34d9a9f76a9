// Integration tests run against the real Postgres, Redis and Kafka that `scripts/infra up` starts.
// Refuse to run without them rather than let tests fall back to something less real.
export default function setup() {
  const missing = ["DATABASE_URL", "REDIS_URL", "KAFKA_BROKERS"].filter((name) => !process.env[name]);
  if (missing.length > 0) {
    throw new Error(`integration tests need real infrastructure: ${missing.join(", ")} unset. Run: eval "$(scripts/infra up)"`);
  }
}
