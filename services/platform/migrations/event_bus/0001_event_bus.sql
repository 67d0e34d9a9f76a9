-- Up Migration
-- The Postgres-backed event bus (used when KAFKA_BROKERS is unset). Modelled on a Kafka topic:
-- an append-only log split into partitions by key, and one committed position per consumer
-- group and partition.

-- `position` grows in commit order within a topic, because publishers serialise on an advisory
-- lock per topic; so a consumer that has read up to N never misses a later-committed smaller one.
CREATE TABLE events (
  position     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  topic        text        NOT NULL,
  partition    integer     NOT NULL CHECK (partition >= 0),
  event_id     text        NOT NULL,
  key          text        NOT NULL,
  type         text        NOT NULL,
  value        bytea       NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  -- A republished event (after a publisher crash) is stored once.
  CONSTRAINT events_topic_event_id_key UNIQUE (topic, event_id)
);

CREATE INDEX events_topic_partition_position_idx ON events (topic, partition, position);

-- A consumer claims a partition by locking its row (FOR UPDATE SKIP LOCKED) for one batch, so the
-- consumers of one group share the partitions and never handle one partition concurrently.
CREATE TABLE consumer_positions (
  group_id   text        NOT NULL,
  topic      text        NOT NULL,
  partition  integer     NOT NULL CHECK (partition >= 0),
  position   bigint      NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, topic, partition)
);

-- Down Migration
DROP TABLE consumer_positions;
DROP TABLE events;
