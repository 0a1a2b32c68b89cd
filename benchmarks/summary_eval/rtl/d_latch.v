// Level-sensitive D latch, transparent while en is high.
module d_latch (
    input  wire en,
    input  wire d,
    output reg  q
);
    always @(*)
        if (en)
            q = d;
endmodule
