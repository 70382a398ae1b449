/*
 * test/unit/parameters_test.cpp
 *	  The parameter table (core/parameters) against everything written from it by hand: the
 *	  installed SQL signature (as pg_regress records it in expected/parameters.out, which
 *	  sql/parameters.sql compares with pg_proc) and the README's parameter reference. A parameter
 *	  added, renamed, retyped or moved in one place and not the others fails here.
 *
 * The files are read from the source tree (DVE_SOURCE_DIR, set by CMakeLists.txt).
 * SPDX-License-Identifier: PostgreSQL
 */
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/parameters.hpp"

namespace datavalue_export::core {
namespace {

std::vector<std::string>
ReadLines(const std::string &relative_path)
{
	std::ifstream in(std::string(DVE_SOURCE_DIR) + "/" + relative_path);
	EXPECT_TRUE(in.good()) << "cannot read " << relative_path;
	std::vector<std::string> lines;
	for (std::string line; std::getline(in, line);)
		lines.push_back(line);
	return lines;
}

std::string
Trim(const std::string &s)
{
	const size_t first = s.find_first_not_of(' ');
	const size_t last = s.find_last_not_of(' ');
	return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

/* Text without the given wrapping characters at both ends (`name`, "limit"). */
std::string
Unwrap(std::string s, char c)
{
	if (s.size() >= 2 && s.front() == c && s.back() == c)
		s = s.substr(1, s.size() - 2);
	return s;
}

std::vector<std::string>
SplitCells(const std::string &row)
{
	std::vector<std::string> cells;
	std::string cell;
	bool in_code = false; /* a '|' inside `code` is text */
	for (size_t i = 1; i < row.size(); i++) {
		if (row[i] == '`')
			in_code = !in_code;
		if (row[i] == '|' && !in_code) {
			cells.push_back(Trim(cell));
			cell.clear();
		} else
			cell.push_back(row[i]);
	}
	return cells;
}

/* How pg_get_function_arguments shows a parameter's type and default. */
std::string
ServerTypeAndDefault(const Parameter &p)
{
	const std::string type(SqlTypeName(p.type));
	const std::string fallback(p.sql_default);
	return type + " DEFAULT " + (fallback == "NULL" ? "NULL::" + type : fallback);
}

TEST(ParametersTest, SqlParametersLeadTheTable)
{
	const ParameterRange params = Parameters();
	const size_t sql = SqlParameterCount();
	EXPECT_EQ(sql, 38u);
	EXPECT_EQ(SqlParameterCount(Format::kJson), sql);
	EXPECT_EQ(SqlParameterCount(Format::kCsv), sql);
	/* export_datavalues_adx: the shared parameters, then the two category schemes. */
	const size_t adx = SqlParameterCount(Format::kAdx);
	EXPECT_EQ(adx, 40u);
	for (size_t i = 0; i < params.size(); i++) {
		EXPECT_EQ(!params[i].sql_name.empty(), i < adx) << params[i].query_name;
		EXPECT_EQ(params[i].adx_only, i >= sql && i < adx) << params[i].query_name;
	}
}

TEST(ParametersTest, NamesAreUniqueAndFound)
{
	std::set<std::string_view> sql_names, query_names;
	for (const Parameter &p : Parameters()) {
		EXPECT_TRUE(query_names.insert(p.query_name).second) << p.query_name;
		EXPECT_EQ(FindQueryParameter(p.query_name), &p);
		if (!p.sql_name.empty()) {
			EXPECT_TRUE(sql_names.insert(p.sql_name).second) << p.sql_name;
		}
	}
	EXPECT_EQ(FindQueryParameter("noSuchParameter"), nullptr);
}

TEST(ParametersTest, EachRowBindsOneFieldOfItsType)
{
	for (const Parameter &p : Parameters()) {
		const int bound = (p.list != nullptr) + (p.flag != nullptr) + (p.int32 != nullptr) + (p.int64 != nullptr) +
		                  (p.text != nullptr);
		switch (p.type) {
		case ParamType::kTextList:
			EXPECT_TRUE(p.list != nullptr) << p.query_name;
			break;
		case ParamType::kBool:
			EXPECT_TRUE(p.flag != nullptr) << p.query_name;
			break;
		case ParamType::kInt32:
		case ParamType::kDate:
			EXPECT_TRUE(p.int32 != nullptr) << p.query_name;
			break;
		case ParamType::kInt64:
		case ParamType::kTimestamp:
			EXPECT_TRUE(p.int64 != nullptr) << p.query_name;
			break;
		case ParamType::kText:
		case ParamType::kDuration:
		case ParamType::kOrder:
			EXPECT_TRUE(p.text != nullptr) << p.query_name;
			break;
		case ParamType::kFormat:
		case ParamType::kIgnored:
		case ParamType::kUnsupported:
		case ParamType::kUnsupportedFlag:
			EXPECT_TRUE(p.sql_name.empty()) << p.query_name;
			EXPECT_EQ(bound, 0) << p.query_name;
			continue;
		}
		EXPECT_EQ(bound, 1) << p.query_name;
		EXPECT_FALSE(SqlTypeName(p.type).empty()) << p.query_name;
	}
}

/* The rows of sql/parameters.sql's first query (export_datavalues_adx, a superset of _json's): " 1 | data_set text[]
 * DEFAULT NULL::text[]". */
TEST(ParametersTest, TableMatchesInstalledSignature)
{
	std::vector<std::string> arguments;
	for (const std::string &line : ReadLines("expected/parameters.out")) {
		const size_t bar = line.find(" | ");
		if (bar == std::string::npos)
			continue;
		const std::string position = Trim(line.substr(0, bar));
		if (position.empty() || position.find_first_not_of("0123456789") != std::string::npos)
			continue;
		EXPECT_EQ(std::stoul(position), arguments.size() + 1);
		arguments.push_back(Trim(line.substr(bar + 3)));
	}
	ASSERT_EQ(arguments.size(), SqlParameterCount(Format::kAdx));
	for (size_t i = 0; i < arguments.size(); i++) {
		const Parameter &p = Parameters()[i];
		const std::string &argument = arguments[i];
		/* SQL keywords ("limit", "offset", "order") are quoted by the server. */
		const size_t space = argument.front() == '"' ? argument.find('"', 1) + 1 : argument.find(' ');
		EXPECT_EQ(Unwrap(argument.substr(0, space), '"'), p.sql_name) << "argument " << i + 1;
		EXPECT_EQ(argument.substr(space + 1), ServerTypeAndDefault(p)) << "argument " << i + 1;
	}
}

/* The README's reference: | `data_set` | `dataSet` | text[] | – | Data sets; ... |, one row a parameter. */
std::string
ReadmeRow(const Parameter &p)
{
	const bool keyword = p.sql_name == "limit" || p.sql_name == "offset" || p.sql_name == "order";
	std::ostringstream row;
	row << "| `" << (keyword ? "\"" : "") << p.sql_name << (keyword ? "\"" : "") << "` | `" << p.query_name << "` | "
	    << SqlTypeName(p.type) << " | " << (p.doc_default.empty() ? "–" : p.doc_default) << " | " << p.doc << " |";
	return row.str();
}

TEST(ParametersTest, ReadmeReferenceMatchesTable)
{
	const std::vector<std::string> lines = ReadLines("README.md");
	std::vector<std::string> rows;
	bool in_table = false;
	for (const std::string &line : lines) {
		if (line.rfind("| Parameter | Query-string name |", 0) == 0) {
			in_table = true;
			continue;
		}
		if (!in_table || line.rfind("|---", 0) == 0)
			continue;
		if (line.empty() || line[0] != '|')
			break;
		rows.push_back(line);
	}
	ASSERT_EQ(rows.size(), SqlParameterCount(Format::kAdx)) << "README parameter rows";
	for (size_t i = 0; i < rows.size(); i++) {
		const Parameter &p = Parameters()[i];
		const std::vector<std::string> cells = SplitCells(rows[i]);
		ASSERT_EQ(cells.size(), 5u) << rows[i];
		EXPECT_EQ(Unwrap(Unwrap(cells[0], '`'), '"'), p.sql_name) << "row " << i + 1;
		EXPECT_EQ(Unwrap(cells[1], '`'), p.query_name) << "row " << i + 1;
		/* The whole row, so the type, default and meaning stay the table's too. */
		EXPECT_EQ(rows[i], ReadmeRow(p)) << "row " << i + 1;
	}
}

} // namespace
} // namespace datavalue_export::core
