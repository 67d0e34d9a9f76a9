-- Up Migration
-- When the meeting's media room was first opened: by a join grant (which opens the room for its
-- holder) or by someone entering. Ending or cancelling a meeting closes its room on the media
-- server only when it may have one; most scheduled meetings never do (docs/decisions/0007-meeting-status-follows-the-room.md).
ALTER TABLE meetings ADD COLUMN room_opened_at timestamptz;
-- Grants issued before this column existed were not recorded: every meeting that can still be
-- entered is taken to have an open room, so its end still closes it.
UPDATE meetings SET room_opened_at = created_at WHERE status IN ('scheduled', 'live');

-- Down Migration
ALTER TABLE meetings DROP COLUMN room_opened_at;
