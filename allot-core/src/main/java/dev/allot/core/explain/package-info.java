/**
 * Explanations of the allocation policy's decisions for people: why a workload waits, where it stands in the queue,
 * the fair-share numbers that place it there, and whether running work may be preempted. Read-only over a
 * {@link dev.allot.core.state.ClusterState}; every ranking comes from the policy's own code.
 */
package dev.allot.core.explain;
