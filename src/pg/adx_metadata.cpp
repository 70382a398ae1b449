/*
 * src/pg/adx_metadata.cpp
 *	  The metadata an ADX export needs beyond the JSON export, read once per export.
 *
 * DHIS2 2.43 StatelessIdCoder (dhis-services/dhis-service-core, org.hisp.dhis.common) and 2.42
 * AdxDataSetMetadata (dhis-service-dxf2, org.hisp.dhis.dxf2.adx) read, for the option combos of
 * the exported values, each combo's categories and the option it picks in each, under
 * categoryIdScheme and categoryOptionIdScheme; and each data element's value type (numeric
 * values go into `value`, others into `<annotation>`). Here:
 *   - the category pairs of every option combo, in the combo's category order
 *     (categorycombos_categories.sort_order; DHIS2's order is a hash order), the option being
 *     the first of the category (categories_categoryoptions.sort_order) that the combo holds;
 *   - which data elements have a non-numeric value type;
 *   - the root's exported time.
 * A combo with a category or option lacking an id under its scheme gets no text, so the result
 * profile (datavalue_query.cpp) refuses it with E8204 when a value uses it.
 *
 * The SQL is search_path-proof: pg_catalog functions and operators, and tables qualified
 * with the schema that holds the datavalue table the export reads.
 * Frames here hold only PODs and palloc'd memory; core objects are touched inside DVE_CORE.
 * May ereport.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <algorithm>

#include "core/timestamp.hpp"
/* Core headers first: they refuse to follow PostgreSQL headers. */
#include "pg/export_session.hpp"
#include "pg/boundary.hpp"

namespace datavalue_export::pg {

namespace {

using core::IdKind;

void
MarkNonNumericElements(ExportState *state, const char *schema)
{
	core::IdentifierList *elements = &state->metadata.objects[static_cast<size_t>(IdKind::kDataElement)];
	/* ValueType.NUMERIC_TYPES, identical in 2.42 and 2.43. */
	RunMetadataQuery(
	    psprintf("SELECT de.dataelementid FROM %s.dataelement de WHERE de.valuetype OPERATOR(pg_catalog.<>) "
	             "ALL (ARRAY['INTEGER', 'INTEGER_POSITIVE', 'INTEGER_NEGATIVE', "
	             "'INTEGER_ZERO_OR_POSITIVE', 'NUMBER', 'UNIT_INTERVAL', 'PERCENTAGE']::pg_catalog.text[])",
	             schema),
	    0, nullptr, nullptr);
	std::vector<int64_t> *ids = &state->scratch.ids;
	DVE_CORE(ids->clear());
	for (uint64 i = 0; i < SPI_processed; i++) {
		const int64 id = GetInt64(SPI_tuptable->vals[i], 1);
		DVE_CORE(ids->push_back(id));
	}
	DVE_CORE({
		std::sort(ids->begin(), ids->end());
		for (size_t i = 0; i < elements->size(); i++)
			elements->MutableDetail(i).non_numeric = std::binary_search(ids->begin(), ids->end(), elements->Id(i));
	});
}

void
LoadCategoryPairs(ExportState *state, const char *schema)
{
	const core::ExportPlan &plan = state->plan;
	char *category = IdentifierSql(plan.category_scheme, "c");
	char *option = IdentifierSql(plan.category_option_scheme, "co");
	/* One row per (combo, category) in category order; the option is NULL when none matches. */
	char *sql = psprintf(
	    "SELECT cco.categoryoptioncomboid, %s, o.id, c.name::pg_catalog.text "
	    "FROM %s.categoryoptioncombo t "
	    "JOIN %s.categorycombos_optioncombos cco ON cco.categoryoptioncomboid OPERATOR(pg_catalog.=) "
	    "t.categoryoptioncomboid "
	    "JOIN %s.categorycombos_categories cc_c ON cc_c.categorycomboid OPERATOR(pg_catalog.=) cco.categorycomboid "
	    "JOIN %s.category c ON c.categoryid OPERATOR(pg_catalog.=) cc_c.categoryid "
	    "LEFT JOIN LATERAL (SELECT %s AS id FROM %s.categories_categoryoptions c_co "
	    "JOIN %s.categoryoption co ON co.categoryoptionid OPERATOR(pg_catalog.=) c_co.categoryoptionid "
	    "JOIN %s.categoryoptioncombos_categoryoptions x ON x.categoryoptionid OPERATOR(pg_catalog.=) "
	    "co.categoryoptionid AND x.categoryoptioncomboid OPERATOR(pg_catalog.=) cco.categoryoptioncomboid "
	    "WHERE c_co.categoryid OPERATOR(pg_catalog.=) c.categoryid ORDER BY c_co.sort_order LIMIT 1) o ON true "
	    "%s ORDER BY t.uid, t.categoryoptioncomboid, cc_c.sort_order",
	    category, schema, schema, schema, schema, option, schema, schema, schema,
	    state->scratch.option_combos_in_use_only ? "WHERE t.categoryoptioncomboid OPERATOR(pg_catalog.=) ANY($1)" : "");
	core::IdentifierList *cocs = &state->metadata.objects[static_cast<size_t>(IdKind::kCategoryOptionCombo)];
	core::IdentifierList *aocs = &state->metadata.objects[static_cast<size_t>(IdKind::kAttributeOptionCombo)];
	/* Only the combos loaded, when those are the export's (LoadOptionCombos): a few, each estimated. */
	Oid types[1] = {INT8ARRAYOID};
	Datum values[1] = {0};
	if (state->scratch.option_combos_in_use_only) {
		std::vector<int64_t> *loaded = &state->scratch.ids;
		DVE_CORE(IdsOf(*cocs, loaded));
		values[0] = Int8Array(*loaded);
	}
	RunMetadataQuery(sql, state->scratch.option_combos_in_use_only ? 1 : 0, types, values);

	/* Both lists are in (uid, id) order (ResolveOptionCombos): walk them together. */
	size_t at = 0;
	for (uint64 r = 0; r < SPI_processed; r++) {
		HeapTuple tuple = SPI_tuptable->vals[r];
		const int64 combo = GetInt64(tuple, 1);
		const char *category_id = SPI_getvalue(tuple, SPI_tuptable->tupdesc, 2);
		const char *option_id = SPI_getvalue(tuple, SPI_tuptable->tupdesc, 3);
		const char *category_name = SPI_getvalue(tuple, SPI_tuptable->tupdesc, 4);
		while (at < cocs->size() && cocs->Id(at) != combo)
			at++;
		if (at == cocs->size())
			elog(ERROR, "category option combo " INT64_FORMAT " is out of order", combo);
		DVE_CORE({
			core::CategoryPair pair;
			if (category_id)
				pair.category = category_id;
			if (option_id)
				pair.option = option_id;
			pair.category_name = category_name ? category_name : "";
			cocs->MutableDetail(at).categories.push_back(pair);
			aocs->MutableDetail(at).categories.push_back(std::move(pair));
		});
	}
	/*
	 * ADX writes combos as categories, never as ids: the text only says whether they are complete.
	 * 2.42 writes nothing for the default combo and never looks its ids up (AdxDataSetMetadata),
	 * so a default category or option without a code does not stop a 2.42 export (E8204).
	 */
	const bool default_unwritten = plan.style == core::Style::k242;
	DVE_CORE({
		for (core::IdentifierList *combos : {cocs, aocs})
			for (size_t i = 0; i < combos->size(); i++) {
				const core::IdentifierRef combo = (*combos)[i];
				bool complete = true;
				for (const core::CategoryPair &pair : combo.detail->categories)
					complete &= pair.category.has_value() && pair.option.has_value();
				if (combo.is_default && default_unwritten)
					complete = true;
				combos->SetText(i, complete ? std::optional<std::string_view>(combo.uid) : std::nullopt);
			}
	});
}

} // namespace

/* ADX additions to the resolved metadata. Call inside SPI, after LoadOptionCombos. May ereport. */
void
ResolveAdxMetadata(ExportState *state)
{
	/* E8200 comes before the identifier checks of the values (E8201-E8204). */
	DVE_CORE(core::CheckAdxDataSetsDefined(state->plan, state->metadata));
	const char *schema = state->dhis2_schema; /* resolved once for the export (metadata.cpp) */
	MarkNonNumericElements(state, schema);
	LoadCategoryPairs(state, schema);
	/* exported: the transaction start in UTC, as xs:dateTime with a Z. */
	const int64 micros = GetCurrentTransactionStartTimestamp();
	DVE_CORE({
		char buffer[core::kTimestampMax];
		char *end = core::WriteDhis2Timestamp(buffer, micros);
		std::string text(buffer, end);
		if (text.size() > 5 && text.compare(text.size() - 5, 5, "+0000") == 0)
			text.replace(text.size() - 5, 5, "Z");
		state->metadata.exported = std::move(text);
	});
}

} // namespace datavalue_export::pg
