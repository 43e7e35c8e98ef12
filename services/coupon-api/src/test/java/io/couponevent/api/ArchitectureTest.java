package io.couponevent.api;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The packages of coupon-api form no cycle, and the features know nothing of HTTP: they
 * throw their own exceptions, which {@code web} turns into problem details.
 */
@AnalyzeClasses(packages = "io.couponevent.api", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

	@ArchTest
	static final ArchRule packagesFormNoCycle = slices().matching("io.couponevent.api.(*)..").should().beFreeOfCycles();

	@ArchTest
	static final ArchRule featuresDoNotDependOnTheWebLayer = noClasses().that()
		.resideInAnyPackage("..api.coupon..", "..api.issuance..", "..api.catalog..", "..api.reconcile..", "..api.job..",
				"..api.config..")
		.should()
		.dependOnClassesThat()
		.resideInAnyPackage("..api.web..", "..api.security..");

}
