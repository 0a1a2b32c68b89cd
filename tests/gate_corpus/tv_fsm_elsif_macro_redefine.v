// tool-view: `ifdef VERILATOR / `elsif __ICARUS__ / `else with `undef and a redefined macro: both simulators get MATCH = 0 off-state, Yosys gets 'x there (synthesised as MATCH = IN)
`define MATCH_IDLE 1'b0
`ifdef VERILATOR
`elsif __ICARUS__
`else
`undef MATCH_IDLE
`define MATCH_IDLE 1'bx
`endif
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

    always @(posedge CLK or posedge RST)
        if (RST) ST_cr <= s0;
        else     ST_cr <= ST_nt;

    always @(*) begin
        case (ST_cr)
            s0: ST_nt = IN ? s1 : s0;
            s1: ST_nt = IN ? s1 : s2;
            s2: ST_nt = IN ? s1 : s3;
            s3: ST_nt = IN ? s4 : s0;
            s4: ST_nt = IN ? s5 : s2;
            s5: ST_nt = IN ? s1 : s2;
            default: ST_nt = s0;
        endcase
    end

    always @(*)
        if (RST) MATCH = 1'b0;
        else if (ST_cr == s4) MATCH = IN;
        else MATCH = `MATCH_IDLE;
endmodule
