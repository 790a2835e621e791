-- An attempt's reason in two parts: reason, the scheduler's own words, which every viewer of the workload sees ("failed
-- to start", "exited with code 1", "preempted by w-7 ..."), and reason_detail, the backend's words (a missing program's
-- path, the declared PATH, an sbatch error naming a script), which only those who may see the workload's command and
-- environment see (the API's Permissions.maySeeDetails; store.AttemptReasons says what the others see instead).
-- A reason stored before this version is one text that may hold the backend's words, and nothing tells them apart
-- without guessing at its wording: it moves whole to reason_detail, so that it stays private.
-- Keep in step with ../postgresql/V11__attempt_reason_detail.sql.
ALTER TABLE attempts ADD COLUMN reason_detail TEXT NULL;
UPDATE attempts SET reason_detail = reason, reason = NULL WHERE reason IS NOT NULL;
