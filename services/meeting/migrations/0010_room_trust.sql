-- Up Migration
-- The room's controls hold (docs/meeting-room.md, "Rights, removals and the lobby under load"):
-- whether an admission came through the lobby (someone who connects without having waited there,
-- while the meeting has a lobby, is removed from the media room), and who waits from which
-- address (the lobby takes a few people per address, and one entry per browser session or link).

ALTER TABLE room_admissions ADD COLUMN admitted_from_lobby boolean NOT NULL DEFAULT false;
CREATE INDEX room_admissions_removed_idx ON room_admissions (meeting_id) WHERE removed_at IS NOT NULL;

-- The SHA-256 of the client address's rate-limit key (an IPv6 /64 counts as one), never the address itself.
ALTER TABLE lobby_entries ADD COLUMN address_hash bytea;
CREATE INDEX lobby_entries_waiting_visitor_idx ON lobby_entries (meeting_id, visitor_hash) WHERE status = 'waiting';
CREATE INDEX lobby_entries_waiting_address_idx ON lobby_entries (meeting_id, address_hash) WHERE status = 'waiting';

-- Down Migration
DROP INDEX lobby_entries_waiting_address_idx;
DROP INDEX lobby_entries_waiting_visitor_idx;
ALTER TABLE lobby_entries DROP COLUMN address_hash;
DROP INDEX room_admissions_removed_idx;
ALTER TABLE room_admissions DROP COLUMN admitted_from_lobby;
