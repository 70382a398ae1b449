/*
 * src/core/document_plan.hpp
 *	  From a validated plan plus the metadata the database resolved, to a ready Writer.
 *
 * This is where DHIS2's document-level rules live: which header members appear (2.43 hoisting
 * of dataSet, period, orgUnit and attributeOptionCombo, the ...IdScheme keys; the 2.42
 * single-data-value-set header with completeDate), and which per-value members are then left
 * out. Keeping it out of src/pg lets unit tests pin each rule without a server.
 *
 * May throw core::Error and std::bad_alloc.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/writer.hpp"
#include "core/id_map.hpp"
#include "core/identifier_list.hpp"
#include "core/validate.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

struct ResolvedMetadata {
	/* Every object a row may reference, per IdKind. */
	IdentifierList objects[kIdKindCount];
	/* The requested data sets, in request order, with their output identifiers. */
	IdentifierList data_sets;
	/* The requested org units, in request order, with their output identifiers. */
	IdentifierList org_units;
	/* Set when exactly one org unit was requested, without children or groups. */
	std::optional<int64_t> single_org_unit_id;
	/* Set when exactly one attribute option combo was requested (directly or via attributeCombo). */
	std::optional<int64_t> single_attribute_option_combo_id;
	/* 2.42 header: completedatasetregistration.date, already formatted; nullopt = null. */
	std::optional<std::string> complete_date;
	/*
	 * 2.43 with non-UID output schemes, from a profile of the result: the one org unit every
	 * value has, and the attribute option combo when the result is exactly one value.
	 */
	std::optional<int64_t> detected_org_unit_id;
	std::optional<int64_t> detected_attribute_option_combo_id;
	/*
	 * 2.43 with a non-UID org unit or AOC scheme: the result is known to hold no value. DHIS2
	 * encodes identifiers from the returned values only, so the requested org unit / AOC then
	 * has no encoding and is left out of the header.
	 */
	bool result_is_empty = false;
	/* ADX: the root's exported attribute (the transaction start, xs:dateTime in UTC). */
	std::string exported;
};

struct PreparedDocument {
	std::unique_ptr<Writer> writer;
	IdMap maps[kIdKindCount]; /* database id -> writer index */
};

PreparedDocument PrepareDocument(const ExportPlan &plan, const ResolvedMetadata &metadata);

/*
 * DHIS2 2.43 refuses to export an object that has no value under a non-UID output scheme
 * (E8200-E8203). used_undefined[k] lists the objects of kind k that rows reference and whose
 * identifier is undefined; throws core::Error naming their UIDs when any is non-empty.
 */
void CheckIdentifiersDefined(const ExportPlan &plan, const ResolvedMetadata &metadata,
                             const std::vector<int64_t> (&used_undefined)[kIdKindCount]);

/* ADX 2.43 refuses a requested data set without a value under its scheme (E8200). */
void CheckAdxDataSetsDefined(const ExportPlan &plan, const ResolvedMetadata &metadata);

} // namespace datavalue_export::core
