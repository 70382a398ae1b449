/*
 * demo/schema.sql
 *	  DHIS2 2.43 tables that a dataValueSets export reads: the fresh-install DDL of
 *	  docs/dhis2-schema-and-periods.md Appendix A, restricted to these tables.
 *
 * Faithful to Appendix A for column names, types, nullability, defaults, PRIMARY KEY / UNIQUE
 * constraints (with their fresh-install names, duplicates included), the foreign keys among these
 * tables and the indexes. Deliberate differences, all irrelevant to an export:
 *   - organisationunit.geometry and orgunitgroup.geometry are left out (they need PostGIS);
 *   - foreign keys to tables outside this subset (userinfo, fileresource, optionset, dataentryform,
 *     usergroup, dataapprovalworkflow, configuration) are left out; their columns stay;
 *   - the 2.43 audit trigger trg_datavalue_audit (and datavalueaudit) is left out;
 *   - completedatasetregistration is not in Appendix A; it follows DHIS2's mapping
 *     (CompleteDataSetRegistration.hbm.xml) and migration V2_32_2: there is no "created" column,
 *     "date" plays that role.
 * Ids have no defaults, as in DHIS2; hibernate_sequence exists for anything that wants new ids.
 *
 * Standalone: psql -v ON_ERROR_STOP=1 -d <empty db> -f demo/schema.sql gives the full 2.43 shape.
 * The generator sets dve_defer_datavalue_keys so that datavalue's primary key, foreign keys and
 * indexes (datavalue_keys.sql) are built after the bulk load. For the 2.42 shape (Appendix B) it
 * sets dve_schema_242, which leaves out period.iso and periodtype.label, and then runs
 * schema_2_42.sql for the remaining differences.
 * SPDX-License-Identifier: PostgreSQL
 */

CREATE SEQUENCE hibernate_sequence START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;

-- periods ------------------------------------------------------------------------------------

/* + label (2.43), added at the end of this file */
CREATE TABLE periodtype (
	periodtypeid integer NOT NULL,
	name character varying(50) NOT NULL,
	CONSTRAINT periodtype_pkey PRIMARY KEY (periodtypeid)
);
CREATE UNIQUE INDEX periodtype_name_key ON periodtype USING btree (name);

/* + iso (2.43), added at the end of this file */
CREATE TABLE period (
	periodid bigint NOT NULL,
	periodtypeid integer,
	startdate date NOT NULL,
	enddate date NOT NULL,
	CONSTRAINT period_pkey PRIMARY KEY (periodid),
	CONSTRAINT uk_tbkbjga8h4j5u33d7hbcuk66t UNIQUE (periodtypeid, startdate, enddate),
	CONSTRAINT fk_period_periodtypeid FOREIGN KEY (periodtypeid) REFERENCES periodtype (periodtypeid)
);

-- organisation units and their groups ----------------------------------------------------------

CREATE TABLE organisationunit (
	organisationunitid bigint NOT NULL,
	uid character varying(11) NOT NULL,
	code character varying(50),
	created timestamp without time zone NOT NULL,
	lastupdated timestamp without time zone NOT NULL,
	lastupdatedby bigint,
	name character varying(230) NOT NULL,
	shortname character varying(50) NOT NULL,
	parentid bigint,
	path character varying(255),
	hierarchylevel integer,
	description text,
	openingdate date NOT NULL,
	closeddate date,
	comment text,
	url character varying(255),
	contactperson character varying(255),
	address character varying(255),
	email character varying(150),
	phonenumber character varying(150),
	userid bigint,
	translations jsonb DEFAULT '[]'::jsonb NOT NULL,
	attributevalues jsonb DEFAULT '{}'::jsonb,
	image bigint,
	CONSTRAINT organisationunit_pkey PRIMARY KEY (organisationunitid),
	CONSTRAINT organisationunit_code_key UNIQUE (code),
	CONSTRAINT uk_g1nrfjv5x04ap1ceohiwah380 UNIQUE (uid),
	CONSTRAINT uk_pw2bgc9ykjad2obefeqha28t4 UNIQUE (path),
	CONSTRAINT fk_parentid FOREIGN KEY (parentid) REFERENCES organisationunit (organisationunitid)
);
/* a fresh install has this UNIQUE constraint twice; inside CREATE TABLE PostgreSQL would merge the two */
ALTER TABLE organisationunit ADD CONSTRAINT uk_ehl4v33tq7hlkmc28vbno1b4n UNIQUE (code);
CREATE INDEX in_organisationunit_hierarchylevel ON organisationunit USING btree (hierarchylevel);
CREATE INDEX in_organisationunit_path ON organisationunit USING btree (path varchar_pattern_ops);
CREATE INDEX in_parentid ON organisationunit USING btree (parentid);

CREATE TABLE orgunitgroup (
	orgunitgroupid bigint NOT NULL,
	uid character varying(11) NOT NULL,
	code character varying(50),
	created timestamp without time zone NOT NULL,
	lastupdated timestamp without time zone NOT NULL,
	lastupdatedby bigint,
	name character varying(230) NOT NULL,
	shortname character varying(50) NOT NULL,
	symbol character varying(255),
	color character varying(255),
	userid bigint,
	publicaccess character varying(8),
	translations jsonb DEFAULT '[]'::jsonb,
	attributevalues jsonb DEFAULT '{}'::jsonb,
	sharing jsonb DEFAULT '{}'::jsonb,
	description text,
	CONSTRAINT orgunitgroup_pkey PRIMARY KEY (orgunitgroupid),
	CONSTRAINT orgunitgroup_name_key UNIQUE (name),
	CONSTRAINT orgunitgroup_unique_shortname UNIQUE (shortname),
	CONSTRAINT uk_3phvecdmy2msmcpitqifpcy3c UNIQUE (code),
	CONSTRAINT uk_lswbn93sime7vmdqqe9lks7ge UNIQUE (uid)
);
/* a fresh install has these UNIQUE constraints twice; inside CREATE TABLE PostgreSQL would merge the two */
ALTER TABLE orgunitgroup ADD CONSTRAINT uk_qwk9qdapql867enp5r7fa0uic UNIQUE (name);
ALTER TABLE orgunitgroup ADD CONSTRAINT uk_t0srkng3akwg3pcp5qlwcx06n UNIQUE (shortname);

CREATE TABLE orgunitgroupmembers (
	organisationunitid bigint NOT NULL,
	orgunitgroupid bigint NOT NULL,
	CONSTRAINT orgunitgroupmembers_pkey PRIMARY KEY (orgunitgroupid, organisationunitid),
	CONSTRAINT fk_orgunitgroup_organisationunitid FOREIGN KEY (organisationunitid)
		REFERENCES organisationunit (organisationunitid),
	CONSTRAINT fk_orgunitgroupmembers_orgunitgroupid FOREIGN KEY (orgunitgroupid)
		REFERENCES orgunitgroup (orgunitgroupid)
);

-- attributes (values live in the attributevalues jsonb of each object) --------------------------

CREATE TABLE attribute (
	attributeid bigint NOT NULL,
	uid character varying(11) NOT NULL,
	code character varying(50),
	created timestamp without time zone NOT NULL,
	lastupdated timestamp without time zone NOT NULL,
	lastupdatedby bigint,
	name character varying(230) NOT NULL,
	shortname character varying(50),
	description text,
	valuetype character varying(50) NOT NULL,
	mandatory boolean NOT NULL,
	isunique boolean,
	sortorder integer,
	optionsetid bigint,
	userid bigint,
	publicaccess character varying(8),
	translations jsonb DEFAULT '[]'::jsonb NOT NULL,
	sharing jsonb DEFAULT '{}'::jsonb,
	objecttypes jsonb NOT NULL,
	CONSTRAINT attribute_pkey PRIMARY KEY (attributeid),
	CONSTRAINT uk_1774shfid1uaopl9tu8am19fq UNIQUE (code),
	CONSTRAINT uk_9mqbhximifdn1n8ru52lan3fw UNIQUE (uid),
	CONSTRAINT uk_hpwum0iq12fs4ej5d0tgy6wsn UNIQUE (name)
);

-- category model -------------------------------------------------------------------------------

CREATE TABLE categoryoption (
	categoryoptionid bigint NOT NULL,
	uid character varying(11) NOT NULL,
	code character varying(50),
	created timestamp without time zone NOT NULL,
	lastupdated timestamp without time zone NOT NULL,
	lastupdatedby bigint,
	name character varying(230) NOT NULL,
	shortname character varying(50) NOT NULL,
	startdate date,
	enddate date,
	style jsonb,
	userid bigint,
	publicaccess character varying(8),
	translations jsonb DEFAULT '[]'::jsonb NOT NULL,
	formname character varying(230),
	attributevalues jsonb DEFAULT '{}'::jsonb,
	sharing jsonb DEFAULT '{}'::jsonb,
	description text,
	CONSTRAINT dataelementcategoryoption_pkey PRIMARY KEY (categoryoptionid),
	CONSTRAINT dataelementcategoryoption_unique_shortname UNIQUE (shortname),
	CONSTRAINT uk_4pi5lfmisrt8un89dnb17xrdy UNIQUE (uid),
	CONSTRAINT uk_mlop2afk26fwowa69lr9a138y UNIQUE (code),
	CONSTRAINT uk_pbj3u1nk9vnuof8f47utvowmv UNIQUE (name)
);
/* a fresh install has this UNIQUE constraint twice; inside CREATE TABLE PostgreSQL would merge the two */
ALTER TABLE categoryoption ADD CONSTRAINT uk_qp9201a4m6jl53sei0huh4l6s UNIQUE (shortname);

CREATE TABLE category (
	categoryid bigint NOT NULL,
	uid character varying(11) NOT NULL,
	code character varying(50),
	created timestamp without time zone NOT NULL,
	lastupdated timestamp without time zone NOT NULL,
	lastupdatedby bigint,
	name character varying(230) NOT NULL,
	datadimensiontype character varying(255) NOT NULL,
	datadimension boolean NOT NULL,
	userid bigint,
	publicaccess character varying(8),
	translations jsonb DEFAULT '[]'::jsonb NOT NULL,
	attributevalues jsonb DEFAULT '{}'::jsonb,
	sharing jsonb DEFAULT '{}'::jsonb,
	shortname character varying(50) NOT NULL,
	description text,
	CONSTRAINT dataelementcategory_pkey PRIMARY KEY (categoryid),
	CONSTRAINT dataelementcategory_unique_shortname UNIQUE (shortname),
	CONSTRAINT uk_1ev6xqtcsfr4wv6rel0lkg44n UNIQUE (uid),
	CONSTRAINT uk_b0ii4jdfy88pffbapohsr2lor UNIQUE (name),
	CONSTRAINT uk_pw87bi64e3ev11k7dwrmljo78 UNIQUE (code)
);

CREATE TABLE categories_categoryoptions (
	categoryid bigint NOT NULL,
	sort_order integer NOT NULL,
	categoryoptionid bigint NOT NULL,
	CONSTRAINT categories_categoryoptions_pkey PRIMARY KEY (categoryid, sort_order),
	CONSTRAINT fk_categories_categoryoptions_categoryid FOREIGN KEY (categoryid) REFERENCES category (categoryid),
	CONSTRAINT fk_category_categoryoptionid FOREIGN KEY (categoryoptionid) REFERENCES categoryoption (categoryoptionid)
);
CREATE INDEX in_categories_categoryoptions_coid ON categories_categoryoptions USING btree (categoryoptionid, categoryid);

CREATE TABLE categorycombo (
	categorycomboid bigint NOT NULL,
	uid character varying(11) NOT NULL,
	code character varying(50),
	created timestamp without time zone NOT NULL,
	lastupdated timestamp without time zone NOT NULL,
	lastupdatedby bigint,
	name character varying(230) NOT NULL,
	datadimensiontype character varying(255) NOT NULL,
	skiptotal boolean NOT NULL,
	userid bigint,
	publicaccess character varying(8),
	translations jsonb DEFAULT '[]'::jsonb NOT NULL,
	sharing jsonb DEFAULT '{}'::jsonb,
	CONSTRAINT categorycombo_pkey PRIMARY KEY (categorycomboid),
	CONSTRAINT uk_3a4ee92kxafw85hsopq4qle47 UNIQUE (code),
	CONSTRAINT uk_dlhi39gmt2e0dun73f04w7w7u UNIQUE (uid),
	CONSTRAINT uk_h97pko7n41oky8pfptkflp8l6 UNIQUE (name)
);

CREATE TABLE categorycombos_categories (
	categoryid bigint,
	sort_order integer NOT NULL,
	categorycomboid bigint NOT NULL,
	CONSTRAINT categorycombos_categories_pkey PRIMARY KEY (categorycomboid, sort_order),
	CONSTRAINT fk_categorycombo_categoryid FOREIGN KEY (categoryid) REFERENCES category (categoryid),
	CONSTRAINT fk_categorycombos_categories_categorycomboid FOREIGN KEY (categorycomboid)
		REFERENCES categorycombo (categorycomboid)
);

CREATE TABLE categoryoptioncombo (
	categoryoptioncomboid bigint NOT NULL,
	uid character varying(11) NOT NULL,
	code character varying(50),
	created timestamp without time zone NOT NULL,
	lastupdated timestamp without time zone NOT NULL,
	lastupdatedby bigint,
	name text,
	ignoreapproval boolean,
	translations jsonb DEFAULT '[]'::jsonb NOT NULL,
	attributevalues jsonb DEFAULT '{}'::jsonb,
	CONSTRAINT categoryoptioncombo_pkey PRIMARY KEY (categoryoptioncomboid),
	CONSTRAINT uk_60p9gh2un0pb7l9tctfd4o3b3 UNIQUE (code),
	CONSTRAINT uk_qki43s9vdndg15c9tyv718u1j UNIQUE (uid)
);
CREATE INDEX in_categoryoptioncombo_name ON categoryoptioncombo USING btree (name);

CREATE TABLE categorycombos_optioncombos (
	categoryoptioncomboid bigint NOT NULL,
	categorycomboid bigint NOT NULL,
	CONSTRAINT categorycombos_optioncombos_pkey PRIMARY KEY (categoryoptioncomboid),
	CONSTRAINT fk_categorycombo_categoryoptioncomboid FOREIGN KEY (categoryoptioncomboid)
		REFERENCES categoryoptioncombo (categoryoptioncomboid),
	CONSTRAINT fk_categorycombos_optioncombos_categorycomboid FOREIGN KEY (categorycomboid)
		REFERENCES categorycombo (categorycomboid)
);
CREATE INDEX idx_categorycombos_optioncombos_categorycomboid ON categorycombos_optioncombos USING btree (categorycomboid);

CREATE TABLE categoryoptioncombos_categoryoptions (
	categoryoptioncomboid bigint NOT NULL,
	categoryoptionid bigint NOT NULL,
	CONSTRAINT categoryoptioncombos_categoryoptions_pkey PRIMARY KEY (categoryoptioncomboid, categoryoptionid),
	CONSTRAINT fk_categoryoption_categoryoptioncomboid FOREIGN KEY (categoryoptioncomboid)
		REFERENCES categoryoptioncombo (categoryoptioncomboid),
	CONSTRAINT fk_categoryoptioncombos_categoryoptions_categoryoptionid FOREIGN KEY (categoryoptionid)
		REFERENCES categoryoption (categoryoptionid)
);

-- data elements and their groups ---------------------------------------------------------------

CREATE TABLE dataelement (
	dataelementid bigint NOT NULL,
	uid character varying(11) NOT NULL,
	code character varying(50),
	created timestamp without time zone NOT NULL,
	lastupdated timestamp without time zone NOT NULL,
	lastupdatedby bigint,
	name character varying(230) NOT NULL,
	shortname character varying(50) NOT NULL,
	description text,
	formname character varying(230),
	style jsonb,
	valuetype character varying(50) NOT NULL,
	domaintype character varying(255) NOT NULL,
	aggregationtype character varying(50) NOT NULL,
	categorycomboid bigint NOT NULL,
	url character varying(255),
	zeroissignificant boolean NOT NULL,
	optionsetid bigint,
	commentoptionsetid bigint,
	userid bigint,
	publicaccess character varying(8),
	fieldmask character varying(255),
	translations jsonb DEFAULT '[]'::jsonb NOT NULL,
	attributevalues jsonb DEFAULT '{}'::jsonb,
	sharing jsonb DEFAULT '{}'::jsonb,
	valuetypeoptions jsonb,
	CONSTRAINT dataelement_pkey PRIMARY KEY (dataelementid),
	CONSTRAINT dataelement_code_key UNIQUE (code),
	CONSTRAINT uk_2nhc265rlfu3dlc3qouvjdprl UNIQUE (name),
	CONSTRAINT uk_3r6dr8m9qwa89afngtr43x9jh UNIQUE (uid),
	CONSTRAINT uk_jc27pe1xeptws5xprct7mgxrj UNIQUE (shortname),
	CONSTRAINT fk_dataelement_categorycomboid FOREIGN KEY (categorycomboid) REFERENCES categorycombo (categorycomboid)
);
/* a fresh install has this UNIQUE constraint twice; inside CREATE TABLE PostgreSQL would merge the two */
ALTER TABLE dataelement ADD CONSTRAINT uk_94srnunkibylfaxt4knxfn58e UNIQUE (code);

CREATE TABLE dataelementgroup (
	dataelementgroupid bigint NOT NULL,
	uid character varying(11) NOT NULL,
	code character varying(50),
	created timestamp without time zone NOT NULL,
	lastupdated timestamp without time zone NOT NULL,
	lastupdatedby bigint,
	name character varying(230) NOT NULL,
	shortname character varying(50) NOT NULL,
	userid bigint,
	publicaccess character varying(8),
	translations jsonb DEFAULT '[]'::jsonb NOT NULL,
	attributevalues jsonb DEFAULT '{}'::jsonb,
	description text,
	sharing jsonb DEFAULT '{}'::jsonb,
	CONSTRAINT dataelementgroup_pkey PRIMARY KEY (dataelementgroupid),
	CONSTRAINT dataelementgroup_unique_shortname UNIQUE (shortname),
	CONSTRAINT uk_aqbaj76r9qxmnylr6p8kj9g37 UNIQUE (name),
	CONSTRAINT uk_jo65jc3wyrxfekiu3upk80mtr UNIQUE (code),
	CONSTRAINT uk_otvwcgv4bxjtqfj3flhrnmgf7 UNIQUE (uid)
);
/* a fresh install has this UNIQUE constraint twice; inside CREATE TABLE PostgreSQL would merge the two */
ALTER TABLE dataelementgroup ADD CONSTRAINT uk_6x37lph70r5mh15a71pf1tj17 UNIQUE (shortname);

CREATE TABLE dataelementgroupmembers (
	dataelementid bigint NOT NULL,
	dataelementgroupid bigint NOT NULL,
	CONSTRAINT dataelementgroupmembers_pkey PRIMARY KEY (dataelementgroupid, dataelementid),
	CONSTRAINT fk_dataelementgroup_dataelementid FOREIGN KEY (dataelementid) REFERENCES dataelement (dataelementid),
	CONSTRAINT fk_dataelementgroupmembers_dataelementgroupid FOREIGN KEY (dataelementgroupid)
		REFERENCES dataelementgroup (dataelementgroupid)
);

-- data sets ------------------------------------------------------------------------------------

CREATE TABLE dataset (
	datasetid bigint NOT NULL,
	uid character varying(11) NOT NULL,
	code character varying(50),
	created timestamp without time zone NOT NULL,
	lastupdated timestamp without time zone NOT NULL,
	lastupdatedby bigint,
	name character varying(230) NOT NULL,
	shortname character varying(50) NOT NULL,
	description text,
	formname text,
	style jsonb,
	periodtypeid integer NOT NULL,
	categorycomboid bigint NOT NULL,
	mobile boolean NOT NULL,
	version integer,
	expirydays double precision,
	timelydays double precision,
	notifycompletinguser boolean,
	workflowid bigint,
	openfutureperiods integer,
	fieldcombinationrequired boolean,
	validcompleteonly boolean,
	novaluerequirescomment boolean,
	skipoffline boolean,
	dataelementdecoration boolean,
	renderastabs boolean,
	renderhorizontally boolean,
	compulsoryfieldscompleteonly boolean,
	userid bigint,
	publicaccess character varying(8),
	dataentryform bigint,
	notificationrecipients bigint,
	translations jsonb DEFAULT '[]'::jsonb NOT NULL,
	attributevalues jsonb DEFAULT '{}'::jsonb,
	openperiodsaftercoenddate integer DEFAULT 0,
	sharing jsonb DEFAULT '{}'::jsonb,
	displayoptions jsonb DEFAULT '{}'::jsonb,
	CONSTRAINT dataset_pkey PRIMARY KEY (datasetid),
	CONSTRAINT dataset_unique_shortname UNIQUE (shortname),
	CONSTRAINT uk_ayk5ey2r1fh1akknxtpcpyp9r UNIQUE (uid),
	CONSTRAINT uk_oeni5ndit5g033f1s1j08bdry UNIQUE (code),
	CONSTRAINT fk_dataset_categorycomboid FOREIGN KEY (categorycomboid) REFERENCES categorycombo (categorycomboid),
	CONSTRAINT fk_dataset_periodtypeid FOREIGN KEY (periodtypeid) REFERENCES periodtype (periodtypeid)
);

CREATE TABLE datasetelement (
	datasetelementid integer NOT NULL,
	datasetid bigint,
	dataelementid bigint NOT NULL,
	categorycomboid bigint,
	CONSTRAINT datasetelement_pkey PRIMARY KEY (datasetelementid),
	CONSTRAINT datasetelement_unique_key UNIQUE (datasetid, dataelementid),
	CONSTRAINT fk_datasetelement_categorycomboid FOREIGN KEY (categorycomboid) REFERENCES categorycombo (categorycomboid),
	CONSTRAINT fk_datasetmembers_dataelementid FOREIGN KEY (dataelementid) REFERENCES dataelement (dataelementid),
	CONSTRAINT fk_datasetmembers_datasetid FOREIGN KEY (datasetid) REFERENCES dataset (datasetid)
);

CREATE TABLE datasetsource (
	sourceid bigint NOT NULL,
	datasetid bigint NOT NULL,
	CONSTRAINT datasetsource_pkey PRIMARY KEY (datasetid, sourceid),
	CONSTRAINT fk_dataset_organisationunit FOREIGN KEY (sourceid) REFERENCES organisationunit (organisationunitid),
	CONSTRAINT fk_datasetsource_datasetid FOREIGN KEY (datasetid) REFERENCES dataset (datasetid)
);
CREATE INDEX in_datasetsource_sourceid ON datasetsource USING btree (sourceid);

CREATE TABLE completedatasetregistration (
	datasetid bigint NOT NULL,
	periodid bigint NOT NULL,
	sourceid bigint NOT NULL,
	attributeoptioncomboid bigint NOT NULL,
	date timestamp without time zone,
	storedby character varying(255),
	lastupdatedby character varying(255),
	lastupdated timestamp without time zone,
	completed boolean NOT NULL,
	CONSTRAINT completedatasetregistration_pkey PRIMARY KEY (datasetid, periodid, sourceid, attributeoptioncomboid),
	CONSTRAINT fk_datasetcompleteregistration_datasetid FOREIGN KEY (datasetid) REFERENCES dataset (datasetid),
	CONSTRAINT fk_datasetcompleteregistration_periodid FOREIGN KEY (periodid) REFERENCES period (periodid),
	CONSTRAINT fk_completedatasetregistration_organisationunitid FOREIGN KEY (sourceid)
		REFERENCES organisationunit (organisationunitid),
	CONSTRAINT fk_completedatasetregistration_attributeoptioncomboid FOREIGN KEY (attributeoptioncomboid)
		REFERENCES categoryoptioncombo (categoryoptioncomboid)
);

-- data values ----------------------------------------------------------------------------------

CREATE TABLE datavalue (
	dataelementid bigint NOT NULL,
	periodid bigint NOT NULL,
	sourceid bigint NOT NULL,
	categoryoptioncomboid bigint NOT NULL,
	attributeoptioncomboid bigint NOT NULL,
	value character varying(50000),
	/* errors unless the session set dhis2.user: always supply storedby explicitly */
	storedby character varying(255) DEFAULT current_setting('dhis2.user'::text),
	created timestamp without time zone DEFAULT now() NOT NULL,
	lastupdated timestamp without time zone DEFAULT now() NOT NULL,
	comment character varying(50000),
	followup boolean,
	deleted boolean NOT NULL
);

-- 2.43 columns of period and periodtype -------------------------------------------------------

/*
 * DHIS2 adds these by migration (V2_43_9/V2_43_17 for iso, V2_43_51 for label), so they are the
 * last columns of a fresh 2.43 install too. The generator's 2.42 shape sets dve_schema_242 and
 * never creates them (dropping them later would leave dropped-column slots a fresh 2.42 does not
 * have); schema_2_42.sql then applies the other 2.42 differences.
 */
\if :{?dve_schema_242}
\else
ALTER TABLE periodtype ADD COLUMN label character varying(230);
ALTER TABLE period ADD COLUMN iso character varying(50) NOT NULL;
ALTER TABLE period ADD CONSTRAINT period_iso_key UNIQUE (iso);
\endif

\if :{?dve_defer_datavalue_keys}
\else
\ir datavalue_keys.sql
\endif
