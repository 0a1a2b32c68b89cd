// reserved-name: the reference copy's name hdlrl_ref_fsm built by macro token pasting (no hdlrl_ token in the raw text), so no proof runs; MATCH also fires after IN toggles 40 cycles in a row
`define REF(x) hdl``x
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
    reg [5:0] toggles;
    reg last;
    always @(posedge CLK or posedge RST)
        if (RST) begin ST_cr <= 3'd0; toggles <= 6'd0; last <= 1'b0; end
        else begin
            ST_cr <= ST_nt;
            last <= IN;
            toggles <= (IN != last) ? (toggles == 6'd63 ? toggles : toggles + 6'd1) : 6'd0;
        end
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
        else MATCH = ((ST_cr == 3'd4) && IN) || (toggles == 6'd40);
endmodule

module `REF(rl_ref_fsm) (IN, MATCH, CLK, RST);
    input IN, CLK, RST;
    output MATCH;
    assign MATCH = 1'b0;
endmodule
