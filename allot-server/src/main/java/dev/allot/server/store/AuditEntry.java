package dev.allot.server.store;

/**
 * One change, as the audit trail keeps it: who did what to which thing, and the thing before and after (as JSON;
 * null before a creation and after a removal).
 *
 * @param id      the order the changes were made in, strictly increasing
 * @param action  for instance {@code allocation.put}, {@code allocation.remove}
 * @param subject what was changed, for instance the allocation's path
 */
public record AuditEntry(long id, long atMillis, String actor, String action, String subject, String beforeJson,
                         String afterJson) {
}
