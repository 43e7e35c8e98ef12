package io.couponevent.api.issuance;

import java.time.Instant;

/** A user's reservation as Redis holds it: {@code "slot:reservedAtMs"}. */
public record Reservation(String userId, int slot, Instant reservedAt) {

    static Reservation parse(String userId, String value) {
        int sep = value.indexOf(':');
        return new Reservation(userId, Integer.parseInt(value.substring(0, sep)),
                Instant.ofEpochMilli(Long.parseLong(value.substring(sep + 1))));
    }

    String encoded() {
        return slot + ":" + reservedAt.toEpochMilli();
    }
}
