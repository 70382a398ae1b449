/*
 * src/core/document_plan.cpp
 *	  DHIS2 header and hoisting rules; see document_plan.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/document_plan.hpp"

#include <stdexcept>

#include "core/error.hpp"

namespace datavalue_export::core {

namespace {

std::optional<IdentifierRef>
Find(const IdentifierList &objects, int64_t id)
{
	for (const IdentifierRef object : objects)
		if (object.id == id)
			return object;
	return std::nullopt;
}

std::optional<std::string>
OwnedText(std::optional<std::string_view> text)
{
	return text ? std::optional<std::string>(*text) : std::nullopt;
}

/* DHIS2 names the scheme UID, CODE, NAME or ATTR in E820x messages. */
std::string
SchemeForMessage(const IdScheme &scheme)
{
	return scheme.type == IdSchemeType::kAttribute ? "ATTR" : scheme.Label();
}

/*
 * E8200: the one requested data set has no identifier under the data set scheme, so the 2.43
 * header cannot name it. DHIS2 encodes the header before any value, so this comes before
 * E8201-E8203 (CheckIdentifiersDefined).
 */
void
CheckHeaderDataSetDefined(const ExportPlan &plan, const ResolvedMetadata &metadata)
{
	if (metadata.data_sets.size() == 1 && plan.request.data_set.size() == 1 && !metadata.data_sets[0].text)
		throw Error(sqlstate::kNullValueNotAllowed,
		            Dhis2Message("E8200", "Export as " + SchemeForMessage(plan.data_set_scheme) +
		                                      " not possible as the property is undefined for data set(s): `[" +
		                                      std::string(metadata.data_sets[0].uid) + "]`"),
		            "", "Give the data set a value for the property, or export with a different id scheme.");
}

/* 2.43 header: each member independently, then the id scheme keys. */
void
Header243(const ExportPlan &plan, const ResolvedMetadata &metadata, DocumentOptions &options)
{
	const ExportRequest &request = plan.request;
	if (metadata.data_sets.size() == 1 && request.data_set.size() == 1 && metadata.data_sets[0].text)
		options.header.push_back({"dataSet", OwnedText(metadata.data_sets[0].text)});
	if (plan.period_iso.size() == 1) {
		options.header.push_back({"period", plan.period_iso[0]});
		options.omit_period = true;
	}
	CheckHeaderDataSetDefined(plan, metadata);
	/* With a non-UID org unit scheme, an org unit common to every value is hoisted too. */
	const std::optional<int64_t> org_unit =
	    metadata.single_org_unit_id ? metadata.single_org_unit_id
	                                : (!plan.org_unit_scheme.IsUid() ? metadata.detected_org_unit_id : std::nullopt);
	if (org_unit) {
		std::optional<IdentifierRef> ou = Find(metadata.objects[static_cast<size_t>(IdKind::kOrgUnit)], *org_unit);
		/* The requested org unit is the header's even when level leaves it out (2.43 takes the request's). */
		if (!ou)
			ou = Find(metadata.org_units, *org_unit);
		const bool encoded = plan.org_unit_scheme.IsUid() || !metadata.result_is_empty;
		if (ou && ou->text && encoded)
			options.header.push_back({"orgUnit", OwnedText(ou->text)});
		options.omit_org_unit = true;
	}
	/* DHIS2 also hoists the AOC of a one-value result under a non-UID AOC scheme (it counts values, not AOCs). */
	const std::optional<int64_t> aoc_id =
	    metadata.single_attribute_option_combo_id
	        ? metadata.single_attribute_option_combo_id
	        : (!plan.attribute_option_combo_scheme.IsUid() ? metadata.detected_attribute_option_combo_id
	                                                       : std::nullopt);
	if (aoc_id) {
		const std::optional<IdentifierRef> aoc =
		    Find(metadata.objects[static_cast<size_t>(IdKind::kAttributeOptionCombo)], *aoc_id);
		const bool encoded = plan.attribute_option_combo_scheme.IsUid() || !metadata.result_is_empty;
		/* The value-level member goes even when the header one is suppressed (DHIS2 2.43). */
		if (aoc && aoc->text && encoded && !(aoc->is_default && request.exclude_default_aoc))
			options.header.push_back({"attributeOptionCombo", OwnedText(aoc->text)});
		options.omit_attribute_option_combo = true;
	}
	const std::pair<const char *, const IdScheme *> schemes[] = {
	    {"dataSetIdScheme", &plan.data_set_scheme},
	    {"dataElementIdScheme", &plan.data_element_scheme},
	    {"orgUnitIdScheme", &plan.org_unit_scheme},
	    {"categoryOptionComboIdScheme", &plan.category_option_combo_scheme},
	    {"attributeOptionComboIdScheme", &plan.attribute_option_combo_scheme},
	};
	for (const auto &[key, scheme] : schemes)
		if (!scheme->IsUid())
			options.header.push_back({key, scheme->Label()});
	/* The category and category option schemes have no parameters of their own here: they follow idScheme. */
	if (request.id_scheme) {
		const IdScheme id_scheme = ParseOutputIdScheme(*request.id_scheme);
		if (!id_scheme.IsUid()) {
			options.header.push_back({"categoryIdScheme", id_scheme.Label()});
			options.header.push_back({"categoryOptionIdScheme", id_scheme.Label()});
		}
	}
}

/* 2.42 header: all four members (null when empty) for a single data value set, else nothing. */
void
Header242(const ExportPlan &plan, const ResolvedMetadata &metadata, DocumentOptions &options)
{
	const ExportRequest &request = plan.request;
	const bool single_set = request.data_set.size() == 1 && request.period.size() == 1 &&
	                        request.org_unit.size() == 1 && request.data_element_group.empty();
	if (!single_set)
		return;
	std::optional<std::string> data_set;
	if (!metadata.data_sets.empty())
		data_set = OwnedText(metadata.data_sets[0].text);
	options.header.push_back({"dataSet", data_set});
	options.header.push_back({"completeDate", metadata.complete_date});
	options.header.push_back({"period", plan.period_iso[0]});
	options.header.push_back(
	    {"orgUnit", metadata.org_units.empty() ? std::optional<std::string>() : OwnedText(metadata.org_units[0].text)});
}

} // namespace

void
CheckIdentifiersDefined(const ExportPlan &plan, const ResolvedMetadata &metadata,
                        const std::vector<int64_t> (&used_undefined)[kIdKindCount])
{
	struct Check {
		IdKind kind;
		const char *code;
		const char *label;
		const IdScheme *scheme;
	};
	const Check checks[] = {
	    {IdKind::kDataElement, "E8201", "data element(s)", &plan.data_element_scheme},
	    {IdKind::kOrgUnit, "E8202", "org unit(s)", &plan.org_unit_scheme},
	    {IdKind::kCategoryOptionCombo, "E8203", "category option combo(s)", &plan.category_option_combo_scheme},
	    {IdKind::kAttributeOptionCombo, "E8203", "category option combo(s)", &plan.attribute_option_combo_scheme},
	};
	const bool adx = plan.request.format == Format::kAdx;
	if (plan.style == Style::k243 && CarriesHeader(plan.request.format))
		CheckHeaderDataSetDefined(plan, metadata);
	for (const Check &check : checks) {
		const std::vector<int64_t> &ids = used_undefined[static_cast<size_t>(check.kind)];
		if (ids.empty())
			continue;
		const bool combo = check.kind == IdKind::kCategoryOptionCombo || check.kind == IdKind::kAttributeOptionCombo;
		/* 2.42 ADX leaves attributes without an id out; only categories must be complete. */
		if (adx && plan.style == Style::k242 && !combo)
			continue;
		/* The UIDs of the objects without an id under the scheme, in metadata order. */
		std::string list;
		for (const IdentifierRef object : metadata.objects[static_cast<size_t>(check.kind)])
			for (int64_t id : ids)
				if (object.id == id) {
					list += list.empty() ? "" : ", ";
					/* A NULL uid (forbidden by DHIS2, refused under UIDs too): the database id. */
					list += object.uid.empty() ? "id " + std::to_string(object.id) : std::string(object.uid);
				}
		if (adx && combo) {
			/*
			 * E8204: some category or option of a combo the values use has no id. DHIS2's
			 * template puts the scheme where the combo list belongs ({1}); we name the combos.
			 */
			throw Error(sqlstate::kNullValueNotAllowed,
			            Dhis2Message("E8204", "Export as category " + SchemeForMessage(plan.category_scheme) +
			                                      " and category options " +
			                                      SchemeForMessage(plan.category_option_scheme) +
			                                      " not possible as the property is undefined for at least one of "
			                                      "them linked to category option combo(s): `[" +
			                                      list + "]`"),
			            "",
			            "Give these categories and options a value for the property, or export with other "
			            "category id schemes.");
		}
		const std::string scheme = SchemeForMessage(*check.scheme);
		throw Error(sqlstate::kNullValueNotAllowed,
		            Dhis2Message(check.code, "Export as " + scheme + " not possible as the property is undefined for " +
		                                         check.label + ": `[" + list + "]`"),
		            "", "Give these objects a value for the property, or export with a different id scheme.");
	}
}

void
CheckAdxDataSetsDefined(const ExportPlan &plan, const ResolvedMetadata &metadata)
{
	/* E8200 (2.43): every data set is a group attribute; 2.42 leaves a missing one out. */
	if (plan.style != Style::k243)
		return;
	for (const IdentifierRef data_set : metadata.data_sets)
		if (!data_set.text)
			throw Error(sqlstate::kNullValueNotAllowed,
			            Dhis2Message("E8200", "Export as " + SchemeForMessage(plan.data_set_scheme) +
			                                      " not possible as the property is undefined for data set: `" +
			                                      std::string(data_set.uid) + "`"),
			            "", "Give the data set a value for the property, or export with a different id scheme.");
}

PreparedDocument
PrepareDocument(const ExportPlan &plan, const ResolvedMetadata &metadata)
{
	DocumentOptions options;
	options.format = plan.request.format;
	options.style = plan.style;
	options.exclude_default_coc = plan.request.exclude_default_coc;
	options.exclude_default_aoc = plan.request.exclude_default_aoc;
	if (options.format == Format::kAdx) {
		CheckAdxDataSetsDefined(plan, metadata);
		for (const IdentifierRef data_set : metadata.data_sets)
			options.data_sets.push_back(OwnedText(data_set.text));
		options.exported = metadata.exported;
	}
	if (CarriesHeader(options.format)) {
		if (plan.style == Style::k243)
			Header243(plan, metadata, options);
		else
			Header242(plan, metadata, options);
	}
	if (plan.style == Style::k242) {
		/* 2.42 has no hoisting and no excludeDefault* parameters. */
		options.omit_period = options.omit_org_unit = options.omit_attribute_option_combo = false;
		options.exclude_default_coc = options.exclude_default_aoc = false;
	}

	PreparedDocument prepared;
	prepared.writer = MakeWriter(options);
	for (size_t k = 0; k < kIdKindCount; k++) {
		const IdentifierList &objects = metadata.objects[k];
		for (size_t i = 0; i < objects.size(); i++) {
			const IdentifierRef object = objects[i];
			if (prepared.writer->AddIdentifier(static_cast<IdKind>(k), object.text, object.is_default, object.detail) !=
			    i)
				throw std::logic_error("identifier indexes out of step");
		}
		/* Straight to the array lookup when the ids allow it: a table first was 16 MB for 329k org units. */
		prepared.maps[k].Assign(objects.size(), [&objects](size_t i) { return objects.Id(i); });
	}
	return prepared;
}

} // namespace datavalue_export::core
