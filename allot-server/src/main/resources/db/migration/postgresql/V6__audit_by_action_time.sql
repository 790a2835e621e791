-- The live timeline (GET /v1/timeline) reads the changes of node health in its window at every refresh of an open
-- page: an index on (action, at_ms) keeps that a range read instead of a scan of the whole audit trail.
CREATE INDEX audit_by_action_time ON audit (action, at_ms);
