/**
 * Client quotas as Kafka has them: the quota settings of users, client ids and IP addresses
 * ({@link io.brook.server.security.quota.QuotaEntity}, kept durably by
 * {@link io.brook.server.security.quota.ClientQuotaStore} and changed by AlterClientQuotas), the byte-rate
 * windows they are measured with ({@link io.brook.server.security.quota.RateWindows}) and the produce and
 * fetch throttling that follows from them ({@link io.brook.server.security.quota.ClientQuotas}).
 */
package io.brook.server.security.quota;
