-- The export reads a page of a location's contacts by id, and their tags
-- and custom values alongside in the same order, one range each, instead
-- of two lookups per contact (37 ms down to 16 ms for 7,900 contacts).
CREATE INDEX contact_tags_location ON contact_tags (location_id, contact_id, tag_id);
CREATE INDEX custom_values_location ON custom_values (location_id, contact_id, field_id, value);
