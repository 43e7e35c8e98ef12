package io.couponevent.consumer;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/** The packages of coupon-consumer form no cycle. */
@AnalyzeClasses(packages = "io.couponevent.consumer", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

	@ArchTest
	static final ArchRule packagesFormNoCycle = slices().matching("io.couponevent.consumer.(*)..")
		.should()
		.beFreeOfCycles();

}
