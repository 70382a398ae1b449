/* datavalue_export--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION datavalue_export UPDATE TO '1.1'" to load this file. \quit

-- The version compiled into the loaded library; after a library upgrade and before ALTER
-- EXTENSION ... UPDATE it differs from pg_extension.extversion. STABLE, as version() is.
CREATE FUNCTION datavalue_export_version() RETURNS text
AS 'MODULE_PATHNAME', 'datavalue_export_version'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION datavalue_export_version() IS
'Version of the datavalue_export library loaded in this session (compare with pg_extension.extversion).';

-- 1.1: DXF2 XML (same named parameters as export_datavalues_json; the parameter table drives them).
CREATE FUNCTION export_datavalues_xml(
    data_set text[] DEFAULT NULL,
    data_element text[] DEFAULT NULL,
    data_element_group text[] DEFAULT NULL,
    period text[] DEFAULT NULL,
    start_date date DEFAULT NULL,
    end_date date DEFAULT NULL,
    org_unit text[] DEFAULT NULL,
    children boolean DEFAULT false,
    org_unit_group text[] DEFAULT NULL,
    level integer DEFAULT NULL,
    include_deleted boolean DEFAULT false,
    last_updated timestamp DEFAULT NULL,
    last_updated_duration text DEFAULT NULL,
    attribute_option_combo text[] DEFAULT NULL,
    category_option_combo text[] DEFAULT NULL,
    attribute_combo text DEFAULT NULL,
    attribute_options text[] DEFAULT NULL,
    "limit" bigint DEFAULT NULL,
    "offset" bigint DEFAULT NULL,
    "order" text DEFAULT NULL,
    order_by_period boolean DEFAULT false,
    exclude_default_coc boolean DEFAULT false,
    exclude_default_aoc boolean DEFAULT false,
    id_scheme text DEFAULT NULL,
    data_element_id_scheme text DEFAULT NULL,
    org_unit_id_scheme text DEFAULT NULL,
    category_option_combo_id_scheme text DEFAULT NULL,
    attribute_option_combo_id_scheme text DEFAULT NULL,
    data_set_id_scheme text DEFAULT NULL,
    input_id_scheme text DEFAULT NULL,
    input_org_unit_id_scheme text DEFAULT NULL,
    input_data_element_id_scheme text DEFAULT NULL,
    input_data_set_id_scheme text DEFAULT NULL,
    input_data_element_group_id_scheme text DEFAULT NULL,
    input_use_code_fallback boolean DEFAULT false,
    style text DEFAULT '2.43',
    compression text DEFAULT 'none',
    compression_level integer DEFAULT NULL
) RETURNS SETOF text
AS 'MODULE_PATHNAME', 'datavalue_export_xml'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION export_datavalues_xml IS
'DHIS2 dataValueSets export as DXF2 XML. Inside COPY (...) TO STDOUT it streams the document itself; as a plain SELECT it returns text chunks whose concatenation is the document.';

REVOKE ALL ON FUNCTION export_datavalues_xml FROM PUBLIC;

-- ADX: the shared parameters, then the category attribute schemes. ADX defaults id_scheme to CODE.
CREATE FUNCTION export_datavalues_adx(
    data_set text[] DEFAULT NULL,
    data_element text[] DEFAULT NULL,
    data_element_group text[] DEFAULT NULL,
    period text[] DEFAULT NULL,
    start_date date DEFAULT NULL,
    end_date date DEFAULT NULL,
    org_unit text[] DEFAULT NULL,
    children boolean DEFAULT false,
    org_unit_group text[] DEFAULT NULL,
    level integer DEFAULT NULL,
    include_deleted boolean DEFAULT false,
    last_updated timestamp DEFAULT NULL,
    last_updated_duration text DEFAULT NULL,
    attribute_option_combo text[] DEFAULT NULL,
    category_option_combo text[] DEFAULT NULL,
    attribute_combo text DEFAULT NULL,
    attribute_options text[] DEFAULT NULL,
    "limit" bigint DEFAULT NULL,
    "offset" bigint DEFAULT NULL,
    "order" text DEFAULT NULL,
    order_by_period boolean DEFAULT false,
    exclude_default_coc boolean DEFAULT false,
    exclude_default_aoc boolean DEFAULT false,
    id_scheme text DEFAULT NULL,
    data_element_id_scheme text DEFAULT NULL,
    org_unit_id_scheme text DEFAULT NULL,
    category_option_combo_id_scheme text DEFAULT NULL,
    attribute_option_combo_id_scheme text DEFAULT NULL,
    data_set_id_scheme text DEFAULT NULL,
    input_id_scheme text DEFAULT NULL,
    input_org_unit_id_scheme text DEFAULT NULL,
    input_data_element_id_scheme text DEFAULT NULL,
    input_data_set_id_scheme text DEFAULT NULL,
    input_data_element_group_id_scheme text DEFAULT NULL,
    input_use_code_fallback boolean DEFAULT false,
    style text DEFAULT '2.43',
    compression text DEFAULT 'none',
    compression_level integer DEFAULT NULL,
    category_id_scheme text DEFAULT NULL,
    category_option_id_scheme text DEFAULT NULL
) RETURNS SETOF text
AS 'MODULE_PATHNAME', 'datavalue_export_adx'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION export_datavalues_adx IS
'DHIS2 dataValueSets export as ADX (IHE QRPH Aggregate Data Exchange) XML, grouped by data set, period, org unit and attribute option combo. Inside COPY (...) TO STDOUT it streams the document itself; as a plain SELECT it returns text chunks whose concatenation is the document.';

REVOKE ALL ON FUNCTION export_datavalues_adx FROM PUBLIC;
