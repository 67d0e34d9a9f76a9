-- Up Migration
-- A failed recording keeps only its stable code (the API's `errorCode`, `recording.failed`); the
-- tenant's words for it come from the code (services/platform/src/contract/recording-failures.ts),
-- and the recorder's own text goes only to the meeting service's log. The free text stored so far
-- (which could be the recorder's own, naming our storage) is dropped; each old failure gets the
-- code its words meant.

ALTER TABLE recordings ADD COLUMN error_code text;
UPDATE recordings SET error_code = CASE
    WHEN error LIKE 'The recorder finished without a file%' THEN 'nothing_recorded'
    WHEN error LIKE 'The recorder aborted%' THEN 'recorder_aborted'
    WHEN error LIKE 'The recorder could not be reached%' THEN 'recorder_unavailable'
    WHEN error LIKE 'The recorder did not finish the file in time%' THEN 'finish_timeout'
    WHEN error LIKE 'The recorder stopped unexpectedly%' THEN 'recorder_lost'
    WHEN error LIKE 'The recorder reported a file that is not in the recordings storage%' THEN 'storage_failed'
    ELSE 'recorder_failed'
  END
  WHERE status = 'failed';
ALTER TABLE recordings DROP COLUMN error;

-- Down Migration
ALTER TABLE recordings ADD COLUMN error text;
UPDATE recordings SET error = error_code WHERE error_code IS NOT NULL;
ALTER TABLE recordings DROP COLUMN error_code;
