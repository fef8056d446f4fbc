/**
 * Client quotas as Kafka has them: the quota settings of users, client ids and IP addresses
 * ({@link io.brook.server.security.quota.QuotaEntity}, kept durably by
 * {@link io.brook.server.security.quota.ClientQuotaStore} and changed by AlterClientQuotas), the
 * windows rates are measured with ({@link io.brook.server.security.quota.RateWindows}), the token buckets
 * of controller_mutation_rate ({@link io.brook.server.security.quota.TokenBucket},
 * {@link io.brook.server.security.quota.MutationQuota}) and the throttling that follows from them
 * ({@link io.brook.server.security.quota.ClientQuotas}).
 */
package io.brook.server.security.quota;
