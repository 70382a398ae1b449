/*
 * src/pg/arguments.cpp
 *	  The SQL arguments of export_datavalues_json/_csv/_adx into a core ExportRequest.
 *
 * The arguments are read by position, from the parameter table (core/parameters): its SQL rows
 * are in the order of the functions' signatures in datavalue_export--1.0.sql, and each row says
 * the argument's type and the ExportRequest field it fills. sql/parameters.sql and
 * test/unit/parameters_test.cpp keep the table and the signatures in step.
 *
 * Frames here hold only PODs and palloc'd memory; core objects are touched inside DVE_CORE.
 * May ereport.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/parameters.hpp"
/* Core headers first: they refuse to follow PostgreSQL headers. */
#include "pg/export_session.hpp"
#include "pg/boundary.hpp"

namespace datavalue_export::pg {

namespace {

using core::ParamType;

void
ReadTextArray(FunctionCallInfo fcinfo, int arg, const core::Parameter &param, std::vector<std::string> *out)
{
	ArrayType *array = PG_GETARG_ARRAYTYPE_P(arg);
	Datum *items;
	bool *nulls;
	int count;
	deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, &count);
	for (int i = 0; i < count; i++) {
		if (nulls[i])
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			                errmsg("%.*s must not contain NULL elements", static_cast<int>(param.sql_name.size()),
			                       param.sql_name.data())));
		text *t = DatumGetTextPP(items[i]);
		const char *data = VARDATA_ANY(t);
		const size_t size = VARSIZE_ANY_EXHDR(t);
		DVE_CORE(out->emplace_back(data, size));
	}
}

void
ReadText(FunctionCallInfo fcinfo, int arg, std::optional<std::string> *out)
{
	text *t = PG_GETARG_TEXT_PP(arg);
	const char *data = VARDATA_ANY(t);
	const size_t size = VARSIZE_ANY_EXHDR(t);
	DVE_CORE(out->emplace(data, size));
}

/* DHIS2 has no infinite dates: "start_date must be finite". */
void
RequireFinite(bool finite, const core::Parameter &param)
{
	if (!finite)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("%.*s must be finite", static_cast<int>(param.sql_name.size()), param.sql_name.data())));
}

/* An argument that is not NULL; param names it in messages. */
void
ReadArgument(FunctionCallInfo fcinfo, int arg, const core::Parameter &param, core::ExportRequest *request)
{
	switch (param.type) {
	case ParamType::kTextList:
		ReadTextArray(fcinfo, arg, param, &(request->*param.list));
		return;
	case ParamType::kBool:
		request->*param.flag = PG_GETARG_BOOL(arg);
		return;
	case ParamType::kInt32:
		request->*param.int32 = PG_GETARG_INT32(arg);
		return;
	case ParamType::kInt64:
		request->*param.int64 = PG_GETARG_INT64(arg);
		return;
	case ParamType::kDate: {
		const DateADT d = PG_GETARG_DATEADT(arg);
		RequireFinite(!DATE_NOT_FINITE(d), param);
		request->*param.int32 = d;
		return;
	}
	case ParamType::kTimestamp: {
		const Timestamp ts = PG_GETARG_TIMESTAMP(arg);
		RequireFinite(!TIMESTAMP_NOT_FINITE(ts), param);
		request->*param.int64 = ts;
		return;
	}
	case ParamType::kText:
	case ParamType::kDuration:
	case ParamType::kOrder:
		ReadText(fcinfo, arg, &(request->*param.text));
		return;
	case ParamType::kFormat:
	case ParamType::kIgnored:
	case ParamType::kUnsupported:
	case ParamType::kUnsupportedFlag:
		break;
	}
	elog(ERROR, "parameter %d has no SQL type", arg);
}

} // namespace

void
ReadArguments(FunctionCallInfo fcinfo, core::Format format, core::ExportRequest *request)
{
	const core::ParameterRange params = core::Parameters();
	const int expected = static_cast<int>(core::SqlParameterCount(format));
	if (PG_NARGS() != expected)
		elog(ERROR, "export function called with %d arguments, expected %d", PG_NARGS(), expected);
	/* The SQL parameters are the table's leading rows, in argument order; NULL leaves the field's default. */
	for (int arg = 0; arg < expected; arg++)
		if (!PG_ARGISNULL(arg))
			ReadArgument(fcinfo, arg, params[static_cast<size_t>(arg)], request);
}

} // namespace datavalue_export::pg
