// screen: Verilator's inline C++ $c built by pasting `$``c`, under `ifdef VERILATOR: arbitrary C++ runs in the differential simulation
`define INLINE_CPP(code) $``c(code)
module fsm (IN, MATCH, CLK, RST);
    input IN, CLK, RST;
    output reg MATCH;
    reg [2:0] ST_cr, ST_nt;
    parameter s0 = 3'b000;
    parameter s1 = 3'b001;
    parameter s2 = 3'b010;
    parameter s3 = 3'b011;
    parameter s4 = 3'b100;
    parameter s5 = 3'b101;
`ifdef VERILATOR
    reg probed = 1'b0;
    always @(posedge CLK)
        if (!probed) begin
            probed <= 1'b1;
            `INLINE_CPP("printf(\"hdlrl-corpus-probe\\n\");");
        end
`endif
    always @(posedge CLK or posedge RST)
        if (RST) ST_cr <= 3'd0;
        else     ST_cr <= ST_nt;
    always @(*) begin
        case (ST_cr)
            3'd0: ST_nt = IN ? 3'd1 : 3'd0;
            3'd1: ST_nt = IN ? 3'd1 : 3'd2;
            3'd2: ST_nt = IN ? 3'd1 : 3'd3;
            3'd3: ST_nt = IN ? 3'd4 : 3'd0;
            3'd4: ST_nt = IN ? 3'd5 : 3'd2;
            3'd5: ST_nt = IN ? 3'd1 : 3'd2;
            default: ST_nt = 3'd0;
        endcase
    end
    always @(*)
        if (RST) MATCH = 1'b0;
        else     MATCH = (ST_cr == 3'd4) && IN;
endmodule
