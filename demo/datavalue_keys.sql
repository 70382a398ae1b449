/*
 * demo/datavalue_keys.sql
 *	  Primary key, foreign keys and indexes of datavalue (docs/dhis2-schema-and-periods.md
 *	  Appendix A, identical in 2.42 and 2.43).
 *
 * Kept apart from schema.sql so that the generator can build them after the bulk insert;
 * schema.sql includes this file itself when run standalone.
 * SPDX-License-Identifier: PostgreSQL
 */

ALTER TABLE datavalue
	ADD CONSTRAINT datavalue_pkey
	PRIMARY KEY (dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid);

CREATE INDEX in_datavalue_lastupdated ON datavalue USING btree (lastupdated);
CREATE INDEX in_datavalue_deleted ON datavalue USING btree (deleted);

ALTER TABLE datavalue
	ADD CONSTRAINT fk_datavalue_attributeoptioncomboid FOREIGN KEY (attributeoptioncomboid)
		REFERENCES categoryoptioncombo (categoryoptioncomboid),
	ADD CONSTRAINT fk_datavalue_categoryoptioncomboid FOREIGN KEY (categoryoptioncomboid)
		REFERENCES categoryoptioncombo (categoryoptioncomboid),
	ADD CONSTRAINT fk_datavalue_dataelementid FOREIGN KEY (dataelementid)
		REFERENCES dataelement (dataelementid),
	ADD CONSTRAINT fk_datavalue_organisationunitid FOREIGN KEY (sourceid)
		REFERENCES organisationunit (organisationunitid),
	ADD CONSTRAINT fk_datavalue_periodid FOREIGN KEY (periodid)
		REFERENCES period (periodid);
