/*
 * src/core/writer_adx.cpp
 *	  ADX (IHE QRPH Aggregate Data Exchange, urn:ihe:qrph:adx:2015) documents, 2.43 and 2.42 shapes;
 *	  see writer.hpp.
 *
 * DHIS2 writes ADX with staxwax over Woodstox (2.42 DefaultAdxDataService, 2.43
 * DataExportOutput.toXml): no XML declaration, no whitespace, `<adx xmlns=...>`, one `<group
 * dataSet period orgUnit [AOC categories]>` per (data set, period, org unit, AOC), and in it one
 * `<dataValue dataElement [COC categories] value/>` per value. Values of a non-numeric type
 * are written as value="0" with the text in `<annotation>`. comment, storedBy, timestamps,
 * followup and deleted are never written.
 *
 * Identifiers are pre-rendered as attribute fragments (` orgUnit="..."`; for option combos
 * the category attributes ` AGE="U5" SEX="F"` in the combo's category order). Beyond DHIS2:
 * the root carries the `exported` attribute the ADX schema requires, and the category order is
 * fixed (DHIS2 2.42 uses HashMap order, 2.43 an order salted per JVM start).
 *
 * Shapes: 2.43 writes the default combo's pair (`default="default"` under CODE) unless
 * excludeDefaultAoc drops it from groups; 2.42 writes no category attributes for the default
 * combo. An identifier without a value under its scheme is left out (2.42; 2.43 has refused
 * such exports before the first byte, E8200-E8204).
 *
 * May throw core::Error (a character XML 1.0 cannot hold; a category id that is not an XML
 * Name) and std::bad_alloc.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/writer.hpp"
#include "core/xml_escape.hpp"

namespace datavalue_export::core {

namespace {

constexpr std::string_view kRootStart = "<adx xmlns=\"urn:ihe:qrph:adx:2015\"";

/* XML 1.0 Name, ASCII exactly; any non-ASCII character is taken as a name character. */
bool
IsXmlName(std::string_view s) noexcept
{
	if (s.empty())
		return false;
	for (size_t i = 0; i < s.size(); i++) {
		const unsigned char c = static_cast<unsigned char>(s[i]);
		const bool start = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' || c >= 0x80;
		const bool rest = (c >= '0' && c <= '9') || c == '.' || c == '-';
		if (!start && !(i > 0 && rest))
			return false;
	}
	return true;
}

/*
 * Why a category id cannot name a category attribute of an element (<dataValue> for a COC's,
 * <group> for an AOC's), or empty. An XML Name is not enough: DHIS2 writes any Name, so a prefix
 * (`AGE:GROUP`) undeclared in the document, `xmlns` (which moves the element out of ADX's
 * namespace) or the element's own attribute (`value`) give XML an ADX reader rejects or misreads.
 */
std::string
AttributeNameProblem(std::string_view name, bool on_group)
{
	if (!IsXmlName(name))
		return "is not an XML name";
	if (name == "xmlns")
		return "would declare the element's namespace";
	if (const size_t colon = name.find(':'); colon != std::string_view::npos)
		return "has the prefix \"" + std::string(name.substr(0, colon)) +
		       "\", a namespace the document does not declare";
	/* The element's own attributes (RenderIdentifier, BeginGroup, WriteRow). */
	const bool own = on_group ? name == "dataSet" || name == "period" || name == "orgUnit"
	                          : name == "dataElement" || name == "value";
	if (own)
		return std::string("is an attribute <") + (on_group ? "group" : "dataValue") + "> has already";
	return {};
}

/* where, when not empty, is a sentence locating the text for the user. */
[[noreturn]] void
ThrowForbiddenCharacter(const char *s, size_t n, std::string_view what, const std::string &where = {})
{
	const unsigned char c = FindForbiddenXmlControl(s, n).value_or(0);
	static const char kHex[] = "0123456789ABCDEF";
	const std::string code = std::string("U+00") + kHex[c >> 4] + kHex[c & 0xF];
	throw Error(kSqlstateCharacterNotInRepertoire,
	            "character " + code + " in " + std::string(what) + " cannot be written in XML",
	            where +
	                "XML 1.0 has no representation for control characters other than TAB, LF and CR; DHIS2 stops the "
	                "document there (\"Invalid white space character\").",
	            "Remove the character from the stored text.");
}

/* ` name="escaped value"`, or throws on a character XML cannot hold. */
void
AppendAttribute(std::string &out, std::string_view name, std::string_view value, std::string_view what)
{
	const size_t start = out.size();
	out.resize(start + 1 + name.size() + 2 + kXmlEscapeFactor * value.size() + 1);
	char *w = out.data() + start;
	*w++ = ' ';
	w = Put(w, name);
	w = Put(w, "=\"");
	w = WriteXmlAttributeValue(w, value.data(), value.size());
	if (w == nullptr)
		ThrowForbiddenCharacter(value.data(), value.size(), what);
	*w++ = '"';
	out.resize(static_cast<size_t>(w - out.data()));
}

template <Style kStyle>
class AdxWriter final : public Writer {
  public:
	explicit AdxWriter(DocumentOptions options) : Writer(std::move(options))
	{
		for (const std::optional<std::string> &data_set : options_.data_sets) {
			std::string fragment;
			if (data_set)
				AppendAttribute(fragment, "dataSet", *data_set, "a data set identifier");
			data_set_fragments_.push_back(std::move(fragment));
		}
	}

	void Begin(OutputBuffer &out) override
	{
		out.Append(kRootStart);
		if (!options_.exported.empty()) {
			std::string exported;
			AppendAttribute(exported, "exported", options_.exported, "the export time");
			out.Append(exported);
		}
	}

	void BeginGroup(const DataValueRow &first, uint32_t data_set, OutputBuffer &out) override
	{
		const uint32_t aoc = first.ids[static_cast<size_t>(IdKind::kAttributeOptionCombo)];
		CheckCombo(IdKind::kAttributeOptionCombo, aoc);
		if (!root_open_) {
			out.Append('>');
			root_open_ = true;
		}
		out.Append("<group");
		out.Append(data_set_fragments_.at(data_set));
		out.Append(fragments_->Get(IdKind::kPeriod, first.ids[static_cast<size_t>(IdKind::kPeriod)]));
		out.Append(fragments_->Get(IdKind::kOrgUnit, first.ids[static_cast<size_t>(IdKind::kOrgUnit)]));
		out.Append(fragments_->Get(IdKind::kAttributeOptionCombo, aoc));
		out.Append('>');
	}

	void EndGroup(OutputBuffer &out) override { out.Append("</group>"); }

	void WriteRow(const DataValueRow &row, OutputBuffer &out) override
	{
		const uint32_t de = row.ids[static_cast<size_t>(IdKind::kDataElement)];
		const uint32_t coc = row.ids[static_cast<size_t>(IdKind::kCategoryOptionCombo)];
		CheckCombo(IdKind::kCategoryOptionCombo, coc);
		const std::string_view de_fragment = fragments_->Get(IdKind::kDataElement, de);
		const std::string_view coc_fragment = fragments_->Get(IdKind::kCategoryOptionCombo, coc);
		const size_t value_size = row.value.is_null ? 0 : row.value.size;
		char *w = out.Reserve(64 + de_fragment.size() + coc_fragment.size() + kXmlEscapeFactor * value_size);
		w = Put(w, "<dataValue");
		w = Put(w, de_fragment);
		w = Put(w, coc_fragment);
		char *escaped;
		if (de < non_numeric_.size() && non_numeric_[de]) {
			/* ADX types value as xs:decimal: other types go into the annotation. */
			w = Put(w, " value=\"0\"><annotation>");
			escaped = WriteXmlText(w, row.value.data, value_size);
			if (escaped == nullptr)
				ThrowForbiddenCharacter(row.value.data, value_size, "a data value", Locate(row, de_fragment));
			w = Put(escaped, "</annotation></dataValue>");
		} else {
			if (!row.value.is_null) {
				w = Put(w, " value=\"");
				escaped = WriteXmlAttributeValue(w, row.value.data, value_size);
				if (escaped == nullptr)
					ThrowForbiddenCharacter(row.value.data, value_size, "a data value", Locate(row, de_fragment));
				w = escaped;
				*w++ = '"';
			}
			w = Put(w, "/>");
		}
		out.Commit(w);
		rows_++;
	}

	void End(OutputBuffer &out) override { out.Append(root_open_ ? std::string_view("</adx>") : "/>"); }

	/* Which stored value a message is about, in the document's own attributes (off the hot path). */
	std::string Locate(const DataValueRow &row, std::string_view de_fragment) const
	{
		return "In the value at" + std::string(de_fragment) +
		       std::string(fragments_->Get(IdKind::kPeriod, row.ids[static_cast<size_t>(IdKind::kPeriod)])) +
		       std::string(fragments_->Get(IdKind::kOrgUnit, row.ids[static_cast<size_t>(IdKind::kOrgUnit)])) + ". ";
	}

  protected:
	std::string RenderIdentifier(IdKind kind, std::optional<std::string_view> text,
	                             bool /* is_default */) const override
	{
		std::string out;
		static const char *const kNames[] = {"dataElement", "period", "orgUnit"};
		if (text && static_cast<size_t>(kind) < 3)
			AppendAttribute(out, kNames[static_cast<size_t>(kind)], *text, "an identifier");
		return out;
	}

	std::string RenderDetailed(IdKind kind, std::optional<std::string_view> text, bool is_default,
	                           const IdentifierDetail *detail) override
	{
		if (kind == IdKind::kDataElement)
			non_numeric_.push_back(detail != nullptr && detail->non_numeric);
		if (kind != IdKind::kCategoryOptionCombo && kind != IdKind::kAttributeOptionCombo)
			return RenderIdentifier(kind, text, is_default);

		std::vector<std::string> &problems = problems_[kind == IdKind::kAttributeOptionCombo];
		std::string problem;
		std::string out;
		/* 2.42 writes nothing for the default combo; 2.43 writes its pair, excludeDefaultAoc aside. */
		const bool none =
		    is_default && (kStyle == Style::k242 || (kind == IdKind::kAttributeOptionCombo && Excluded(kind, true)));
		if (detail != nullptr && !none) {
			const std::vector<CategoryPair> &pairs = detail->categories;
			for (size_t i = 0; i < pairs.size() && problem.empty(); i++) {
				const CategoryPair &pair = pairs[i];
				const std::string name_problem =
				    pair.category ? AttributeNameProblem(*pair.category, kind == IdKind::kAttributeOptionCombo)
				                  : std::string();
				if (!pair.category) {
					problem = "category \"" + pair.category_name + "\" has no identifier (null)";
				} else if (!name_problem.empty()) {
					problem = "the identifier \"" + *pair.category + "\" of category \"" + pair.category_name + "\" " +
					          name_problem;
				} else if (!pair.option || (kStyle == Style::k242 && pair.option->empty())) {
					/* 2.43 writes an empty option code as it is (SEX=""); 2.42 refuses "null or empty". */
					problem = "an option of category \"" + pair.category_name + "\" has no identifier";
				} else {
					/* One attribute twice is not XML (DHIS2 2.42 keeps the later, 2.43 fails): refused. */
					for (size_t j = 0; j < i && problem.empty(); j++)
						if (*pairs[j].category == *pair.category)
							problem = "categories \"" + pairs[j].category_name + "\" and \"" + pair.category_name +
							          "\" have the same identifier \"" + *pair.category + "\"";
					AppendAttribute(out, *pair.category, *pair.option, "a category option identifier");
				}
			}
		}
		problems.push_back(problem);
		if (!problem.empty())
			any_problem_ = true;
		return problem.empty() ? out : std::string();
	}

  private:
	/* An option combo whose categories cannot be written fails the export when a value uses it. */
	void CheckCombo(IdKind kind, uint32_t index) const
	{
		if (!any_problem_)
			return;
		const std::vector<std::string> &problems = problems_[kind == IdKind::kAttributeOptionCombo];
		if (index < problems.size() && !problems[index].empty())
			throw Error(sqlstate::kNullValueNotAllowed, "cannot write the category attributes of an option combo",
			            "In ADX, " + problems[index] + ".",
			            "Give the category and its options an identifier under the category id schemes, or export "
			            "with other schemes.");
	}

	std::vector<std::string> data_set_fragments_;
	std::vector<bool> non_numeric_;        /* by data element index */
	std::vector<std::string> problems_[2]; /* by COC / AOC index: why its categories cannot be written */
	bool any_problem_ = false;
	bool root_open_ = false;
};

} // namespace

std::unique_ptr<Writer>
MakeAdxWriter(const DocumentOptions &options)
{
	if (options.style == Style::k242)
		return std::make_unique<AdxWriter<Style::k242>>(options);
	return std::make_unique<AdxWriter<Style::k243>>(options);
}

} // namespace datavalue_export::core
