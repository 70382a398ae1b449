/*
 * src/core/document_plan.hpp
 *	  From a validated plan plus the metadata the database resolved, to a ready DocumentWriter.
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

#include "core/document_writer.hpp"
#include "core/id_map.hpp"
#include "core/validate.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* One metadata object with its identifier under the output id scheme (nullopt = no value). */
struct Identifier {
	int64_t id;
	std::optional<std::string> text;
	bool is_default = false; /* the default category option combo */
};

struct ResolvedMetadata {
	/* Every object a row may reference, per IdKind. */
	std::vector<Identifier> objects[kIdKindCount];
	/* The requested data sets, in request order, with their output identifiers. */
	std::vector<Identifier> data_sets;
	/* Set when exactly one org unit was requested, without children or groups. */
	std::optional<int64_t> single_org_unit_id;
	/* Set when exactly one attribute option combo was requested (directly or via attributeCombo). */
	std::optional<int64_t> single_attribute_option_combo_id;
	/* 2.42 header: completedatasetregistration.date, already formatted; nullopt = null. */
	std::optional<std::string> complete_date;
	/* The single requested period exists in the database (2.42 header period is null otherwise). */
};

struct PreparedDocument {
	std::unique_ptr<DocumentWriter> writer;
	IdMap maps[kIdKindCount]; /* database id -> writer index */
};

PreparedDocument PrepareDocument(const ExportPlan &plan, const ResolvedMetadata &metadata);

} // namespace datavalue_export::core
