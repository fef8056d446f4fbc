package io.brook.wire.generator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** One schema file: a request or response body of one API. */
final class Message {
    String name;
    int apiKey;
    Versions valid;
    Versions flexible;
    final List<Field> fields = new ArrayList<>();
    final Map<String, Struct> structs = new LinkedHashMap<>();

    boolean isRequest() {
        return name.endsWith("Request");
    }

    String apiName() {
        return name.substring(0, name.length() - (isRequest() ? "Request".length() : "Response".length()));
    }

    String apiKeyConstant() {
        return apiName().replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }

    Struct top() {
        return new Struct(name, name, fields, true);
    }
}
