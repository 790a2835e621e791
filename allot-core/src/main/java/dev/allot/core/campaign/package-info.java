/**
 * Campaigns: many shards of one job submitted together to one allocation, finished as early as its budget allows.
 *
 * <p>A campaign may run a few shards <em>protected</em> (charged to the allocation, with a minimum runtime) and the
 * others <em>unallocated</em> on idle GPUs. The rules here decide, from what was measured so far, which shards hold the
 * protected slots ({@link SlotPlanner}: longest estimated remaining work first, {@link ParkingOrder}), how a slot that
 * frees is filled (promotion in place of a shard already running, or a restart as a Slurm user must do), how long each
 * shard has left ({@link RateEstimator}) and when the campaign should end ({@link CampaignEta}), and when a shard is
 * braked ({@link ShardBrakes}). Pure decisions: no clock, no I/O; the simulator and the service carry out the
 * {@link CampaignMove moves}.
 */
package dev.allot.core.campaign;
