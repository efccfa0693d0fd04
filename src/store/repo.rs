//! Repositories by table family, and the one rule of how units of work use them (issue 27).
//!
//! A repository is a thin view of one table family over a connection: it holds the SQL of its
//! own tables and nothing else. `Family<'t>` (access [`Read`]) only reads, and is made from a
//! `&Connection` (`Family::read(conn)`); `Family<'t, Write>` also writes, and can only be made
//! from a `&Transaction` (`Family::write(&tx)`), so no write runs outside a transaction.
//!
//! A repository never opens a transaction and never calls another family's repository: the
//! units of work do both. A unit of work (a `Store` method, such as "a link was created" in
//! `store::changes`) opens ONE transaction (`write_tx`, `BEGIN IMMEDIATE`), makes the
//! repositories it needs on it, composes them, and commits; what it writes commits or rolls back
//! together. The reads that must see one snapshot run in one read transaction the same way.

use std::marker::PhantomData;

/// A repository's access: reads only.
#[derive(Debug, Clone, Copy)]
pub enum Read {}

/// A repository's access: reads and writes, inside a unit of work's transaction.
#[derive(Debug, Clone, Copy)]
pub enum Write {}

/// The access marker's value (a repository holds no data of its access).
pub(crate) type Access<A> = PhantomData<fn() -> A>;

/// Declares a repository type over one table family: the struct, `read` and `write`
/// constructors and `Debug`. Its methods are written in its family's module: reads in
/// `impl<A> Family<'_, A>`, writes in `impl Family<'_, Write>`.
macro_rules! repository {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        pub struct $name<'t, A = $crate::store::repo::Read> {
            conn: &'t rusqlite::Connection,
            _access: $crate::store::repo::Access<A>,
        }

        impl<'t> $name<'t, $crate::store::repo::Read> {
            /// The family's reads over `conn`.
            #[allow(dead_code, reason = "a family only units of work read")]
            pub(crate) fn read(conn: &'t rusqlite::Connection) -> Self {
                Self {
                    conn,
                    _access: std::marker::PhantomData,
                }
            }
        }

        impl<'t> $name<'t, $crate::store::repo::Write> {
            /// The family's reads and writes inside the unit of work's transaction `tx`.
            #[allow(dead_code, reason = "a family some units of work only read")]
            pub(crate) fn write(tx: &'t rusqlite::Transaction<'_>) -> Self {
                Self {
                    conn: tx,
                    _access: std::marker::PhantomData,
                }
            }
        }

        impl<A> std::fmt::Debug for $name<'_, A> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(stringify!($name))
            }
        }
    };
}
pub(crate) use repository;
