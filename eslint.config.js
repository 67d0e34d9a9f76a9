// The lint rules that the type-checker does not cover: promises nobody awaits, and the boundaries
// that keep the architecture what README's Architecture section says it is. Typed linting
// (typescript-eslint's project service), so a floating promise is found whatever module returned it.
// Run by `npm run lint`, which `npm test` runs first.
import tseslint from "typescript-eslint";

/** A module the listed files must not import, and why (the message says where the rule lives). */
const forbid = (name, message) => ({ name, message });

const otherServices = (self) =>
  ["identity", "meeting", "webhook"]
    .filter((service) => service !== self)
    .map((service) => ({
      group: [`**/services/${service}/**`, `**/${service}/src/**`, `@svc/${service}`, `@svc/${service}/**`],
      message: `A bounded context reaches ${service} only through its gRPC API (@svc/proto), never its code.`,
    }));

const pgOnlyInDb = forbid("pg", "Only src/db/ talks to Postgres: put the query in the service's src/db/ module.");
const kafkaOnlyInEventBus = forbid("kafkajs", "Kafka is reached through the platform's event bus (services/platform/src/events).");

export default tseslint.config(
  {
    ignores: ["**/node_modules/**", "**/dist/**", "proto/gen/**", "client/src/schema.ts", "**/.bundle/**", "eslint.config.js"],
  },
  {
    files: ["**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  // The scripts are type-checked with the tests (test/tsconfig.json includes them).
  {
    files: ["scripts/**/*.ts"],
    languageOptions: { parserOptions: { projectService: false, project: ["./test/tsconfig.json"], tsconfigRootDir: import.meta.dirname } },
  },
  // Postgres only under src/db/, Kafka only in the platform's event bus, and no service's code in
  // another service.
  ...["identity", "meeting", "webhook"].map((service) => ({
    files: [`services/${service}/src/**/*.ts`],
    ignores: [`services/${service}/src/db/**`],
    rules: { "no-restricted-imports": ["error", { paths: [pgOnlyInDb, kafkaOnlyInEventBus], patterns: otherServices(service) }] },
  })),
  {
    files: ["services/platform/src/**/*.ts"],
    ignores: ["services/platform/src/db/**", "services/platform/src/events/**"],
    rules: { "no-restricted-imports": ["error", { paths: [pgOnlyInDb, kafkaOnlyInEventBus], patterns: otherServices(undefined) }] },
  },
  {
    files: ["services/platform/src/events/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { paths: [pgOnlyInDb], patterns: otherServices(undefined) }] },
  },
  // The gateway is thin: no database, no Kafka, no service's code; it calls the services over Connect.
  // The platform's core entry (@svc/platform) reaches neither Postgres nor Kafka; its /db, /events
  // and /service entries do, so they are forbidden here as pg and kafkajs are.
  {
    files: ["gateway/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            forbid("pg", "The gateway has no database: call the owning service."),
            forbid("kafkajs", "The gateway publishes nothing: the owning service emits events through its outbox."),
            forbid("@svc/platform/db", "The gateway has no database: call the owning service."),
            forbid("@svc/platform/events", "The gateway publishes nothing: the owning service emits events through its outbox."),
            forbid("@svc/platform/service", "The gateway is no gRPC service process (this entry migrates a database): see gateway/src/main.ts."),
          ],
          patterns: otherServices(undefined),
        },
      ],
    },
  },
  // No fixed waits in tests: a test waits for its condition (test/support/wait.ts), or, where it
  // proves that something does NOT happen or lets time pass that the code measures, says why
  // (holdStill in test/support/hold-still.ts). A bare timer only adds time, and flakes under load.
  {
    files: ["test/**/*.test.ts", "test/**/*.cluster-test.ts"],
    rules: {
      "no-restricted-globals": [
        "error",
        ...["setTimeout", "setInterval"].map((name) => ({
          name,
          message: "Wait for the condition (waitFor, test/support/wait.ts), or holdStill(ms, reason) for a wait on purpose.",
        })),
      ],
      "no-restricted-imports": [
        "error",
        ...["node:timers/promises", "timers/promises", "node:timers", "timers"].map((name) =>
          forbid(name, "Wait for the condition (waitFor, test/support/wait.ts), or holdStill(ms, reason) for a wait on purpose."),
        ),
      ],
    },
  },
  // The pages are built from components of one job each: no view function grows past a screenful or two.
  {
    files: ["gateway/web/**/*.ts"],
    rules: { "max-lines-per-function": ["error", { max: 120, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
);
