package io.couponevent.common.security;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;

import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class JwtPropertiesTest {

	private static final String SECRET = "local-dev-secret-change-me-0123456789abcdef";

	private static final URI JWKS = URI.create("http://127.0.0.1:1/jwks");

	@Test
	void exactlyOneKeySource() {
		assertThat(new JwtProperties(SECRET, null, null, null).hasSecret()).isTrue();
		assertThat(new JwtProperties(null, JWKS, null, null).hasSecret()).isFalse();
		assertThat(new JwtProperties("  ", JWKS, null, null).secret()).as("blank counts as unset").isNull();
		assertThat(new JwtProperties(SECRET, null, " ", "").issuer()).as("a blank issuer is unset").isNull();
		assertThat(new JwtProperties(SECRET, null, " ", "").audience()).as("a blank audience is unset").isNull();
		assertThatIllegalArgumentException().isThrownBy(() -> new JwtProperties(null, null, null, null))
			.withMessageContaining("Set exactly one of")
			.withMessageContaining("coupon.security.jwt.jwk-set-uri");
		assertThatIllegalArgumentException().isThrownBy(() -> new JwtProperties(SECRET, JWKS, null, null))
			.withMessageContaining("Set exactly one of");
		assertThatIllegalArgumentException().isThrownBy(() -> new JwtProperties("too-short", null, null, null))
			.withMessageContaining("at least 32 bytes");
	}

	@Test
	void decoderAcceptsTheSecretsTokensAndRolesBecomeAuthorities() throws Exception {
		JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("ops")
			.claim("roles", List.of("admin"))
			.expirationTime(Date.from(Instant.now().plusSeconds(60)))
			.build();
		SignedJWT token = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
		token.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));

		Jwt jwt = CouponTokens.decoder(new JwtProperties(SECRET, null, null, null)).decode(token.serialize());
		assertThat(jwt.getSubject()).isEqualTo("ops");
		assertThat(CouponTokens.rolesConverter().convert(jwt).getAuthorities())
			.extracting(GrantedAuthority::getAuthority)
			.contains("ROLE_admin");
	}

}
