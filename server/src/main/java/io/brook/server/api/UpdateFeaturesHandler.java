package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.wire.message.UpdateFeaturesRequest;
import io.brook.wire.message.UpdateFeaturesRequest.FeatureUpdateKey;
import io.brook.wire.message.UpdateFeaturesResponse;
import io.brook.wire.message.UpdateFeaturesResponse.UpdatableFeatureResult;
import io.brook.wire.protocol.Errors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * UpdateFeatures (key 57, {@code kafka-features.sh upgrade|downgrade|disable}, KIP-584/KIP-778):
 * finalizes feature levels in {@link FeatureLevels}, which persists them and puts them in force
 * at once (the next ApiVersions answer shows them, under a higher epoch). Checked as Kafka's
 * controller checks them, each update in the order of the request; the first that fails fails the
 * whole request with INVALID_UPDATE_VERSION and nothing changes:
 * <ul>
 *   <li>an upgrade type other than 1 (upgrade), 2 (safe downgrade), 3 (unsafe downgrade);</li>
 *   <li>a level below 0;</li>
 *   <li>a level outside the supported range {@link FeatureLevels} declares (an unknown feature
 *       supports only 0);</li>
 *   <li>a lower level than the finalized one with type upgrade, a higher one with a downgrade
 *       type;</li>
 *   <li>for {@code metadata.version}, any downgrade: Kafka refuses the downgrades that could
 *       lose metadata and every unsafe one; Brook, which keeps no metadata log whose records it
 *       could check, treats every downgrade as one that could.</li>
 * </ul>
 * A feature that is unknown to Brook can be "disabled" (level 0) only if it is one Kafka knows;
 * Brook knows all of Kafka 4.4's, so it answers as Kafka does for a name Kafka does not know.
 * Kafka also checks the dependencies between features' levels; every level Brook supports
 * depends at most on {@code metadata.version} 4.4-IV2, which is the only one it runs, so there
 * is nothing to check. {@code ValidateOnly} (v1+, {@code --dry-run}) answers without changing
 * anything. As in Kafka v0's {@code AllowDowngrade} is ignored (v0 is an upgrade), v0 and v1
 * answer a success with one result per feature, v2 without, and a failure carries no results.
 */
final class UpdateFeaturesHandler implements ApiHandler<UpdateFeaturesRequest> {

    private static final byte UPGRADE = 1;
    private static final byte SAFE_DOWNGRADE = 2;
    private static final byte UNSAFE_DOWNGRADE = 3;

    private final int nodeId;
    private final FeatureLevels features;

    UpdateFeaturesHandler(int nodeId, FeatureLevels features) {
        this.nodeId = nodeId;
        this.features = features;
    }

    @Override
    public void handle(RequestContext ctx, UpdateFeaturesRequest request) {
        Map<String, Short> updates = new LinkedHashMap<>();
        for (FeatureUpdateKey u : request.featureUpdates()) {
            String invalid = invalid(u.feature(), u.maxVersionLevel(), u.upgradeType());
            if (invalid != null) {
                ctx.respond(new UpdateFeaturesResponse().errorCode(Errors.INVALID_UPDATE_VERSION.code())
                        .errorMessage("The update failed for all features since the following feature had an error: "
                                + "Invalid update version " + u.maxVersionLevel() + " for feature " + u.feature()
                                + ". " + invalid));
                return;
            }
            updates.put(u.feature(), u.maxVersionLevel());
        }
        if (!request.validateOnly()) {
            try {
                features.finalizeLevels(updates);
            } catch (IOException e) {
                ctx.fail(e);
                return;
            }
        }
        UpdateFeaturesResponse response = new UpdateFeaturesResponse().errorCode(Errors.NONE.code());
        if (ctx.apiVersion() <= 1) {
            List<UpdatableFeatureResult> results = new ArrayList<>();
            for (FeatureUpdateKey u : request.featureUpdates()) {
                results.add(new UpdatableFeatureResult().feature(u.feature()).errorCode(Errors.NONE.code()));
            }
            response.results(results);
        }
        ctx.respond(response);
    }

    /** Why {@code feature} cannot go to {@code level} with {@code upgradeType}, in Kafka's words; null if it can. */
    private String invalid(String feature, short level, byte upgradeType) {
        if (upgradeType != UPGRADE && upgradeType != SAFE_DOWNGRADE && upgradeType != UNSAFE_DOWNGRADE) {
            return "The controller does not support the given upgrade type.";
        }
        if (level < 0) {
            return "A feature version cannot be less than 0.";
        }
        FeatureLevels.Levels l = features.levels(feature);
        short min = l == null ? 0 : l.min();
        short max = l == null ? 0 : l.max();
        if (level < min || level > max) {
            return max == 0 ? "Local controller " + nodeId + " does not support this feature."
                    : "Local controller " + nodeId + " only supports versions " + (min == max ? "" + min : min + "-" + max);
        }
        short current = l == null ? 0 : l.level();
        if (level < current && upgradeType == UPGRADE) {
            return "Can't downgrade the version of this feature without setting the upgrade type to either safe or "
                    + "unsafe downgrade.";
        }
        if (level > current && upgradeType != UPGRADE) {
            return "Can't downgrade to a newer version.";
        }
        if (feature.equals(FeatureLevels.METADATA_VERSION) && level < current) {
            return upgradeType == UNSAFE_DOWNGRADE ? "Unsafe metadata downgrade is not supported in this version."
                    : "Refusing to perform the requested downgrade because it might delete metadata information.";
        }
        if (l == null) {
            return "Feature " + feature + " not found.";
        }
        return null;
    }
}
