//! SOAP 1.1 faults: what a request did wrong (Client), what went wrong here (Server), or that the
//! envelope is not SOAP 1.1 (VersionMismatch).

use crate::envelope::NS_SOAP11;
use crate::escape::write_text;

/// The `faultcode` of a SOAP 1.1 fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultCode {
    /// The envelope is not in the SOAP 1.1 namespace (for example a SOAP 1.2 envelope).
    VersionMismatch,
    /// A header entry marked `mustUnderstand="1"` names something this service does not
    /// understand (SOAP 1.1 section 4.2.3).
    MustUnderstand,
    /// The request is wrong: malformed XML, a missing element, a bad value, an unknown operation.
    Client,
    /// The request was fine, but the service failed to answer it.
    Server,
}

impl FaultCode {
    /// The QName written in `faultcode`, with the envelope's `soap` prefix.
    pub fn qname(self) -> &'static str {
        match self {
            FaultCode::VersionMismatch => "soap:VersionMismatch",
            FaultCode::MustUnderstand => "soap:MustUnderstand",
            FaultCode::Client => "soap:Client",
            FaultCode::Server => "soap:Server",
        }
    }

    /// The local part of the code, as a client reads it back.
    pub fn local_name(self) -> &'static str {
        &self.qname()["soap:".len()..]
    }

    /// Looks a code up by its local part.
    pub fn from_local_name(name: &str) -> Option<FaultCode> {
        [
            FaultCode::VersionMismatch,
            FaultCode::MustUnderstand,
            FaultCode::Client,
            FaultCode::Server,
        ]
        .into_iter()
        .find(|code| code.local_name() == name)
    }
}

/// A SOAP fault: a code and a plain-words `faultstring`.
///
/// The reason says what was wrong and where (element names, and the byte offset for malformed
/// XML), and never carries a stack trace.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {reason}", code.local_name())]
pub struct Fault {
    pub code: FaultCode,
    pub reason: String,
}

impl Fault {
    /// A fault blaming the request.
    pub fn client(reason: impl Into<String>) -> Fault {
        Fault {
            code: FaultCode::Client,
            reason: reason.into(),
        }
    }

    /// A fault blaming the service.
    pub fn server(reason: impl Into<String>) -> Fault {
        Fault {
            code: FaultCode::Server,
            reason: reason.into(),
        }
    }

    /// A fault for an envelope that is not SOAP 1.1.
    pub fn version_mismatch(reason: impl Into<String>) -> Fault {
        Fault {
            code: FaultCode::VersionMismatch,
            reason: reason.into(),
        }
    }

    /// Appends the fault's SOAP 1.1 envelope to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"<soap:Envelope xmlns:soap=\"");
        out.extend_from_slice(NS_SOAP11.as_bytes());
        out.extend_from_slice(b"\"><soap:Body><soap:Fault><faultcode>");
        out.extend_from_slice(self.code.qname().as_bytes());
        out.extend_from_slice(b"</faultcode><faultstring>");
        write_text(out, &self.reason);
        out.extend_from_slice(b"</faultstring></soap:Fault></soap:Body></soap:Envelope>");
    }
}
