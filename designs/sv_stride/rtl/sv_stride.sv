// Stride detector of an address stream, as a prefetcher would use it: it learns the distance
// between consecutive addresses and grows a saturating confidence while that distance repeats.
module sv_stride #(
    parameter int AW       = 12,  // address width
    parameter int CONF_MAX = 3,   // confidence saturates here
    parameter int CONF_HIT = 2    // confidence from which a prediction is offered
) (
    input  logic          clk,
    input  logic          rst_n,
    input  logic          valid,
    input  logic [AW-1:0] addr,
    output logic [AW-1:0] stride,
    output logic [1:0]    conf,
    output logic          hit,
    output logic [AW-1:0] predict
);
    typedef enum logic [1:0] {EMPTY, ONE, TRACK} state_t;

    state_t        state;
    logic [AW-1:0] last;
    logic [AW-1:0] delta;

    assign delta = addr - last;

    always_ff @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state  <= EMPTY;
            last   <= '0;
            stride <= '0;
            conf   <= 2'd0;
        end else if (valid) begin
            last <= addr;
            unique case (state)
                EMPTY: state <= ONE;
                ONE: begin
                    stride <= delta;
                    conf   <= 2'd0;
                    state  <= TRACK;
                end
                TRACK: begin
                    if (delta == stride) begin
                        if (conf < 2'(CONF_MAX))
                            conf <= conf + 2'd1;
                    end else begin
                        stride <= delta;
                        conf   <= 2'd0;
                    end
                end
                default: state <= EMPTY;
            endcase
        end
    end

    assign hit     = (state == TRACK) && (conf >= 2'(CONF_HIT));
    assign predict = hit ? last + stride : '0;
endmodule
