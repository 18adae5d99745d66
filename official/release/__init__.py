"""The authors' original release -> curated sources: their workbooks (``workbooks``), the KG rows
(``kg``), media (``media``), questions (``queries``) and search routes (``routes``), the
``mhmmkg import-official`` command (``import_release``) that writes a sources folder
(``sources_writer``), and the curators' route report (``compat``)."""
